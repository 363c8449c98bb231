// Write the model ONNX Runtime's CPU build runs after its "extended" graph optimizations: the
// com.microsoft fused ops (FusedConv, FusedMatMul, SkipLayerNormalization, Attention, BiasGelu,
// FastGelu, ...) that its optimizer emits. Usage: NODE_PATH=... node ort_optimize.js IN.onnx OUT.onnx
const ort = require('onnxruntime-node');
const [input, output] = process.argv.slice(2);
ort.InferenceSession.create(input, {graphOptimizationLevel: 'extended', optimizedModelFilePath: output})
  .then(() => process.exit(0))
  .catch(e => { process.stderr.write(`ort_optimize: ${e.message}\n`); process.exit(2); });
