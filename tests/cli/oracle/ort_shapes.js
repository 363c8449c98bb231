// Shape oracle: run MODEL.all.onnx (every node output is a graph output) in ONNX Runtime's CPU build on
// the inputs described by FEEDS.json (zero-filled, or every element `fill` where a feed gives one), and
// print {"output name": [dims...], ...} as JSON. With VALUES.json, also write there the values of the
// outputs with at most 64 integer or bool elements ({"name": [v...]}), which decide control flow.
// Usage: NODE_PATH=<dir with onnxruntime-node> node ort_shapes.js MODEL.all.onnx FEEDS.json [VALUES.json]
const fs = require('fs');
const ort = require('onnxruntime-node');

const types = {1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array],
               9: ['bool', Uint8Array], 10: ['float16', Uint16Array], 11: ['float64', Float64Array]};

async function main() {
  const [model, feedsPath, valuesPath] = process.argv.slice(2);
  const feeds = {};
  for (const f of JSON.parse(fs.readFileSync(feedsPath, 'utf8'))) {
    const t = types[f.elem_type];
    if (!t) throw new Error(`${feedsPath}: input '${f.name}' has elem_type ${f.elem_type}, not handled`);
    const n = f.shape.reduce((a, b) => a * b, 1);
    const data = new t[1](n);
    if (f.fill !== undefined) data.fill(t[1] === BigInt64Array ? BigInt(f.fill) : f.fill);
    feeds[f.name] = new ort.Tensor(t[0], data, f.shape);
  }
  const session = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'disabled'});
  const out = await session.run(feeds);
  const shapes = {}, values = {};
  for (const k of Object.keys(out)) {
    shapes[k] = out[k].dims.map(Number);
    const t = out[k].type;
    if (out[k].size <= 64 && (t === 'bool' || t.startsWith('int') || t.startsWith('uint')))
      values[k] = Array.from(out[k].data, Number);
  }
  process.stdout.write(JSON.stringify(shapes) + '\n');
  if (valuesPath) fs.writeFileSync(valuesPath, JSON.stringify(values) + '\n');
}
main().catch(e => { process.stderr.write(`ort_shapes: ${e.message}\n`); process.exit(2); });
