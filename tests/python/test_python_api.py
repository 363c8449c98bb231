"""The perfpred Python module against the CLI: predict from a path and from bytes, byte-identical JSON,
errors as exceptions, devices, gpu specs, select, sweep and mig. No torch needed (test_python_torch.py).
Usage: python3 test_python_api.py PERFPRED_BINARY REPO_ROOT  (PYTHONPATH holds the built package;
exit 0 pass, 77 skip, else fail)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

BIN, ROOT = sys.argv[1], sys.argv[2]
ZOO = os.path.join(ROOT, "models", "zoo")
RESNET18 = os.path.join(ZOO, "resnet18.onnx")

try:
    import perfpred
except ImportError as e:
    print(f"skip: the perfpred module is not importable ({e}); build with pybind11-dev installed")
    sys.exit(77)


def cli(*args):
    """stdout of the perfpred binary; raises on a non-zero exit."""
    return subprocess.run([BIN, *args], check=True, capture_output=True, text=True).stdout


def cli_error(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


class Predict(unittest.TestCase):
    def test_path_matches_cli_byte_for_byte(self):
        for extra, kw in [([], {}),
                          (["--batch", "32", "--precision", "fp16"], dict(batch=32, precision="fp16")),
                          (["--mode", "training", "--optimizer", "adam", "--batch", "8"],
                           dict(mode="training", optimizer="adam", batch=8)),
                          (["--runtime", "tensorrt", "--precision", "int8"], dict(runtime="tensorrt", precision="int8")),
                          (["--no-copies"], dict(copies=False)),
                          (["--pageable-copies"], dict(copies="pageable")),
                          ([], dict(copies="pinned")),
                          (["--host-factor", "1.5"], dict(host_factor=1.5)),
                          (["--no-tf32"], dict(tf32=False)),
                          (["--cuda-graphs"], dict(cuda_graphs=True)),
                          (["--grad-mode"], dict(grad_mode=True)),
                          (["--batch", "16", "--launch-queue", "1"], dict(batch=16, launch_queue=1)),
                          (["--precision", "fp16", "--batch", "32", "--channels-last"],
                           dict(precision="fp16", batch=32, channels_last=True)),
                          (["--attention", "math"], dict(attention="math")),
                          (["--mode", "training", "--param-updates", "loop"], dict(mode="training", param_updates="loop")),
                          (["--mode", "training", "--precision", "fp16", "--mixed-precision", "half"],
                           dict(mode="training", precision="fp16", mixed_precision="half"))]:
            want = cli("predict", RESNET18, "--gpu", "a100-sxm4-40gb", "--json", "--layers", "--no-meta", *extra)
            got = perfpred.predict(RESNET18, gpu="a100-sxm4-40gb", **kw)
            self.assertEqual(got.to_json(), want, extra)
            self.assertEqual(got.to_dict(), json.loads(want))

    def test_launch_queue_out_of_range_is_an_input_error(self):
        """launch_queue= takes what --launch-queue takes (0-65536 kernels); anything else names the keyword."""
        for bad in (-1, 65537, 2 ** 40, "two", 1.5, True):
            with self.assertRaises(perfpred.InputError) as ctx:
                perfpred.predict(RESNET18, gpu="a100-sxm4-40gb", launch_queue=bad)
            self.assertIn("launch_queue=", str(ctx.exception))

    def test_copies_takes_pinned_pageable_or_a_bool(self):
        """copies= is True/"pinned", "pageable" (--pageable-copies) or False (--no-copies); another string names
        the keyword and what it takes."""
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.predict(RESNET18, gpu="a100-sxm4-40gb", copies="unpinned")
        self.assertIn("copies='unpinned'", str(ctx.exception))
        self.assertIn("'pageable'", str(ctx.exception))

    def test_without_layers_matches_cli(self):
        want = cli("predict", RESNET18, "--gpu", "l4", "--json", "--no-meta")
        got = perfpred.predict(RESNET18, gpu="l4", layers=False)
        self.assertEqual(got.to_json(), want)
        self.assertEqual(got.layers if "layers" in got else [], [])

    def test_fields_and_rows(self):
        r = perfpred.predict(RESNET18, gpu="l4", batch=4)
        d = r.to_dict()
        self.assertEqual(r.latency_ms, d["latency_ms"])
        self.assertEqual(r["energy_mj"], d["energy_mj"])
        self.assertEqual(r.batch, 4)
        self.assertGreater(r.latency_ms, 0)
        self.assertEqual(r.breakdown["kernels_ms"], d["breakdown"]["kernels_ms"])
        rng = r.latency_range_ms  # the shipped table's range (models/latency-intervals.json)
        self.assertLess(rng["low"], r.latency_ms)
        self.assertGreater(rng["high"], r.latency_ms)
        self.assertTrue(rng["regime"].startswith("eager/"))
        for key, value in (("energy_range_mj", r.energy_mj), ("power_range_w", r.avg_power_w)):
            self.assertLess(r[key]["low"], value)  # energy and power ranges from the same table
            self.assertGreater(r[key]["high"], value)
        self.assertEqual(len(r.rows), len(d["layers"]))
        self.assertGreater(len(r.layers), 10)
        self.assertEqual(set(r.layers[0]), {"name", "op", "kernels", "time_ms", "flops", "bytes", "bound"})
        self.assertIn("latency_ms", dir(r))
        self.assertIn("resnet18", repr(r))
        with self.assertRaises(AttributeError):
            r.no_such_field
        with self.assertRaises(AttributeError):
            r.latency_ms = 1

    def test_bytes_same_prediction_as_path(self):
        with open(RESNET18, "rb") as f:
            data = f.read()
        by_path = perfpred.predict(RESNET18, gpu="t4", batch=16).to_dict()
        by_bytes = perfpred.predict(data, gpu="t4", batch=16, name="resnet18").to_dict()
        self.assertEqual(by_bytes, by_path)
        self.assertEqual(perfpred.predict(data, gpu="t4").model, "model")

    def test_meta(self):
        r = perfpred.predict(RESNET18, gpu="t4", meta=True)
        self.assertEqual(r.meta["model_path"], RESNET18)
        self.assertNotIn("meta", perfpred.predict(RESNET18, gpu="t4"))

    def test_hypothetical_gpu_as_dict_and_file(self):
        spec_file = os.path.join(ROOT, "data", "examples", "hypothetical-gpu.json")
        with open(spec_file) as f:
            spec = json.load(f)
        by_dict = perfpred.predict(RESNET18, gpu=spec).to_dict()
        by_file = perfpred.predict(RESNET18, gpu=spec_file).to_dict()
        self.assertEqual(by_dict["gpu"], "spec:hypothetical")
        by_dict.pop("gpu"), by_file.pop("gpu")
        self.assertEqual(by_dict, by_file)
        g = perfpred.gpu(spec)
        self.assertEqual(g.sm_count, 84)
        self.assertEqual(perfpred.predict(RESNET18, gpu=g).to_dict()["latency_ms"], by_file["latency_ms"])

    def test_learned_bundle_matches_cli(self):
        want = cli("predict", RESNET18, "--gpu", "l4", "--json", "--layers", "--no-meta", "--model", "default")
        self.assertEqual(perfpred.predict(RESNET18, gpu="l4", bundles="default").to_json(), want)


class ControlFlow(unittest.TestCase):
    """--loop-trips and --branch as loop_trips= and branches= (an ONNX Loop and If written with onnx)."""

    def test_loop_trips_and_branches_match_cli(self):
        try:
            import onnx
            from onnx import TensorProto as T, helper as h
        except ImportError:
            self.skipTest("no onnx module")
        w = h.make_tensor("w", T.FLOAT, [64, 64], [0.01] * 4096)
        body = h.make_graph([h.make_node("MatMul", ["a", "w"], ["a2"], name="mm"),
                             h.make_node("Identity", ["cin"], ["cout"], name="keep")], "body",
                            [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cin", T.BOOL, []),
                             h.make_tensor_value_info("a", T.FLOAT, [8, 64])],
                            [h.make_tensor_value_info("cout", T.BOOL, []), h.make_tensor_value_info("a2", T.FLOAT, [8, 64])])
        g = h.make_graph([h.make_node("Constant", [], ["t"], value=h.make_tensor("tv", T.BOOL, [], [1])),
                          h.make_node("Loop", ["m", "t", "x"], ["y"], body=body, name="steps")], "loop",
                         [h.make_tensor_value_info("x", T.FLOAT, [8, 64]), h.make_tensor_value_info("m", T.INT64, [])],
                         [h.make_tensor_value_info("y", T.FLOAT, [8, 64])], [w])
        loop = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]).SerializeToString()
        then = h.make_graph([h.make_node("Relu", ["x"], ["ty"], name="cheap")], "then", [],
                            [h.make_tensor_value_info("ty", T.FLOAT, [8, 64])])
        els = h.make_graph([h.make_node("MatMul", ["x", "w"], ["ey"], name="costly")], "else", [],
                           [h.make_tensor_value_info("ey", T.FLOAT, [8, 64])])
        g = h.make_graph([h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=els, name="gate")], "if",
                         [h.make_tensor_value_info("x", T.FLOAT, [8, 64]), h.make_tensor_value_info("c", T.BOOL, [1])],
                         [h.make_tensor_value_info("y", T.FLOAT, [8, 64])], [w])
        branchy = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]).SerializeToString()
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for n, data in (("loop", loop), ("if", branchy)):
                paths[n] = os.path.join(d, n + ".onnx")
                with open(paths[n], "wb") as f:
                    f.write(data)
            want = cli("predict", paths["loop"], "--gpu", "l4", "--loop-trips", "steps=3", "--json", "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(paths["loop"], gpu="l4", loop_trips={"steps": 3}).to_json(), want)
            rc, err = cli_error("predict", paths["loop"], "--gpu", "l4")
            with self.assertRaises(perfpred.InputError) as ctx:
                perfpred.predict(paths["loop"], gpu="l4")
            self.assertEqual("perfpred: error: " + str(ctx.exception), err)
            want = cli("predict", paths["if"], "--gpu", "l4", "--branch", "gate=then", "--json", "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(paths["if"], gpu="l4", branches={"gate": "then"}).to_json(), want)
            self.assertEqual(len(perfpred.select(loop, ["l4"], loop_trips=["steps=3"]).rows), 1)

    def test_data_counts_match_cli(self):
        """--data-count as data_counts=: one NonZero by name ({"nz": 5}), or every data-dependent node (an int)."""
        try:
            import onnx
            from onnx import TensorProto as T, helper as h
        except ImportError:
            self.skipTest("no onnx module")
        w = h.make_tensor("w", T.FLOAT, [2, 8], [0.5] * 16)
        g = h.make_graph([h.make_node("NonZero", ["x"], ["n"], name="nz"),
                          h.make_node("Cast", ["n"], ["f"], to=T.FLOAT, name="cast"),
                          h.make_node("Transpose", ["f"], ["t"], perm=[1, 0], name="tr"),
                          h.make_node("MatMul", ["t", "w"], ["y"], name="mm")], "nz",
                         [h.make_tensor_value_info("x", T.FLOAT, [1, 16])], [h.make_tensor_value_info("y", T.FLOAT, None)], [w])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "nz.onnx")
            onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
            want = cli("predict", path, "--gpu", "l4", "--data-count", "nz=5", "--json", "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(path, gpu="l4", data_counts={"nz": 5}).to_json(), want)
            want = cli("predict", path, "--gpu", "l4", "--data-count", "5", "--json", "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(path, gpu="l4", data_counts=5).to_json(), want)
            with self.assertRaises(perfpred.InputError):
                perfpred.predict(path, gpu="l4")
            with self.assertRaises(perfpred.InputError):
                perfpred.predict(path, gpu="l4", data_counts={"other": 5})

    def test_nms_candidates_match_cli(self):
        """--nms-candidates as nms_candidates=: one NonMaxSuppression by name, or every one with a threshold (an int),
        in predict and in the decision calls (select)."""
        try:
            import onnx
            from onnx import TensorProto as T, helper as h
        except ImportError:
            self.skipTest("no onnx module")
        consts = [h.make_tensor("most", T.INT64, [1], [10]), h.make_tensor("iou", T.FLOAT, [1], [0.5]),
                  h.make_tensor("thr", T.FLOAT, [1], [0.3])]
        g = h.make_graph([h.make_node("NonMaxSuppression", ["boxes", "scores", "most", "iou", "thr"], ["k"], name="nms")],
                         "nms", [h.make_tensor_value_info("boxes", T.FLOAT, [1, 2000, 4]),
                                 h.make_tensor_value_info("scores", T.FLOAT, [1, 20, 2000])],
                         [h.make_tensor_value_info("k", T.INT64, None)], consts)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "nms.onnx")
            onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
            want = cli("predict", path, "--gpu", "l4", "--data-count", "5", "--nms-candidates", "nms=50", "--json",
                       "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(path, gpu="l4", data_counts=5, nms_candidates={"nms": 50}).to_json(), want)
            want = cli("predict", path, "--gpu", "l4", "--data-count", "5", "--nms-candidates", "50", "--json",
                       "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(path, gpu="l4", data_counts=5, nms_candidates=50).to_json(), want)
            every = perfpred.predict(path, gpu="l4", data_counts=5)
            self.assertGreater(every.latency_ms, perfpred.predict(path, gpu="l4", data_counts=5, nms_candidates=50).latency_ms)
            fewer = perfpred.select(path, ["l4"], data_counts=5, nms_candidates=50)
            self.assertLess(fewer.rows[0]["latency_ms"], perfpred.select(path, ["l4"], data_counts=5).rows[0]["latency_ms"])
            with self.assertRaises(perfpred.InputError):
                perfpred.predict(path, gpu="l4", data_counts=5, nms_candidates={"other": 5})
            with self.assertRaises(perfpred.InputError):
                perfpred.predict(path, gpu="l4", data_counts=5, nms_candidates=-1)

    def test_dims_match_cli(self):
        """--dim as dims=: a symbolic seq dim set by name."""
        try:
            import onnx
            from onnx import TensorProto as T, helper as h
        except ImportError:
            self.skipTest("no onnx module")
        w = h.make_tensor("w", T.FLOAT, [64, 64], [0.01] * 4096)
        g = h.make_graph([h.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "seq",
                         [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 64])],
                         [h.make_tensor_value_info("y", T.FLOAT, None)], [w])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "seq.onnx")
            onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
            want = cli("predict", path, "--gpu", "l4", "--dim", "seq=7", "--json", "--layers", "--no-meta")
            self.assertEqual(perfpred.predict(path, gpu="l4", dims={"seq": 7}).to_json(), want)
            rc, err = cli_error("predict", path, "--gpu", "l4")
            self.assertIn("--dim seq=N", err)
            with self.assertRaises(perfpred.InputError) as ctx:
                perfpred.predict(path, gpu="l4")
            self.assertEqual("perfpred: error: " + str(ctx.exception), err)
            self.assertEqual(len(perfpred.select(path, ["l4"], dims=["seq=7"]).rows), 1)


class FitHost(unittest.TestCase):
    def test_round_trip_matches_cli(self):
        """fit_host() is `fit-host --json`: a prediction at F=1.7 fits back to 1.7."""
        lenet = os.path.join(ZOO, "lenet5.onnx")
        t = perfpred.predict(lenet, gpu="a100-sxm4-40gb", host_factor=1.7, layers=False).latency_ms
        got = perfpred.fit_host(lenet, "a100-sxm4-40gb", t)
        self.assertEqual(got.to_json(), cli("fit-host", lenet, "--gpu", "a100-sxm4-40gb", "--measured-ms", repr(t), "--json"))
        self.assertAlmostEqual(got.host_factor, 1.7, delta=0.017)
        # With the factor, a host-bound prediction carries the range of a timed host (models/latency-intervals.json).
        timed = perfpred.predict(lenet, gpu="a100-sxm4-40gb", host_factor=got.host_factor, layers=False)
        self.assertTrue(timed.latency_range_ms["regime"].startswith("host-calibrated/eager/host-bound"))
        self.assertEqual(got.latency_ms["at_host_factor_1"], perfpred.predict(lenet, gpu="a100-sxm4-40gb").latency_ms)
        with open(lenet, "rb") as f:
            self.assertEqual(perfpred.fit_host(f.read(), "a100-sxm4-40gb", t, name="lenet5").to_dict(), got.to_dict())
        train = perfpred.predict(RESNET18, gpu="l4", mode="training", host_factor=3, layers=False).latency_ms
        self.assertAlmostEqual(perfpred.fit_host(RESNET18, "l4", train, mode="training").host_factor, 3, delta=0.03)

    def test_unmatched_is_the_cli_error(self):
        lenet = os.path.join(ZOO, "lenet5.onnx")
        for t in ("0.001", "1000", "-1"):
            rc, err = cli_error("fit-host", lenet, "--gpu", "a100-sxm4-40gb", "--measured-ms", t)
            self.assertEqual(rc, 2)
            with self.assertRaises(perfpred.InputError) as ctx:
                perfpred.fit_host(lenet, "a100-sxm4-40gb", float(t))
            self.assertEqual("perfpred: error: " + str(ctx.exception), err)
        for bad in (None, "1.2"):
            with self.assertRaises(perfpred.InputError):
                perfpred.fit_host(lenet, "a100-sxm4-40gb", bad)


class FitGpu(unittest.TestCase):
    def test_round_trip_matches_cli(self):
        """fit_gpu() is `fit-gpu --json`: ResNet-18 at batch 64 on an A30, predicted at G=1.3 with a host factor of
        1.5 held, fits back to 1.3; fit_host() holds gpu_factor= as fit-host holds --gpu-factor; a host-bound run
        is the CLI's error."""
        t = perfpred.predict(RESNET18, gpu="a30", batch=64, gpu_factor=1.3, host_factor=1.5, layers=False).latency_ms
        got = perfpred.fit_gpu(RESNET18, "a30", t, batch=64, host_factor=1.5)
        self.assertEqual(got.to_json(), cli("fit-gpu", RESNET18, "--gpu", "a30", "--batch", "64", "--host-factor", "1.5",
                                            "--measured-ms", repr(t), "--json"))
        self.assertAlmostEqual(got.gpu_factor, 1.3, delta=0.013)
        self.assertEqual(got.host_factor, 1.5)
        lenet = os.path.join(ZOO, "lenet5.onnx")
        h = perfpred.predict(lenet, gpu="a30", host_factor=2, gpu_factor=1.2, layers=False).latency_ms
        fh = perfpred.fit_host(lenet, "a30", h, gpu_factor=1.2)
        self.assertAlmostEqual(fh.host_factor, 2, delta=0.02)
        self.assertEqual(fh.gpu_factor, 1.2)
        rc, err = cli_error("fit-gpu", lenet, "--gpu", "a30", "--measured-ms", repr(h))
        self.assertEqual(rc, 2)
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.fit_gpu(lenet, "a30", h)
        self.assertEqual("perfpred: error: " + str(ctx.exception), err)


class Errors(unittest.TestCase):
    def assert_same_error(self, cli_args, call, *args, **kw):
        rc, err = cli_error(*cli_args)
        self.assertEqual(rc, 2, err)
        with self.assertRaises(perfpred.InputError) as ctx:
            call(*args, **kw)
        self.assertEqual("perfpred: error: " + str(ctx.exception), err)
        self.assertNotIn("\n", str(ctx.exception))
        self.assertIsInstance(ctx.exception, ValueError)

    def test_cli_messages(self):
        self.assert_same_error(["predict", RESNET18, "--gpu", "no-such-gpu"], perfpred.predict, RESNET18, gpu="no-such-gpu")
        self.assert_same_error(["predict", RESNET18, "--gpu", "l4", "--batch", "0"], perfpred.predict, RESNET18,
                               gpu="l4", batch=0)
        self.assert_same_error(["predict", RESNET18, "--gpu", "l4", "--precision", "fp64"], perfpred.predict,
                               RESNET18, gpu="l4", precision="fp64")
        self.assert_same_error(["predict", "/nonexistent.onnx", "--gpu", "l4"], perfpred.predict, "/nonexistent.onnx",
                               gpu="l4")
        self.assert_same_error(["predict", RESNET18, "--gpu", "l4", "--mode", "training", "--runtime", "tensorrt"],
                               perfpred.predict, RESNET18, gpu="l4", mode="training", runtime="tensorrt")
        self.assert_same_error(["devices", "show", "h100-nope"], perfpred.gpu, "h100-nope")

    def test_bad_bytes_are_input_errors(self):
        for data in [b"not an onnx model", b"\x08\x07\x12\xff\xff\xff\xff\x0f", b"\x00" * 100]:
            with self.assertRaises(perfpred.InputError):
                perfpred.predict(data, gpu="l4")
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.predict(b"", gpu="l4")
        self.assertIn("empty", str(ctx.exception))

    def test_bad_types(self):
        for kw in [dict(gpu=3), dict(gpu="l4", batch="8"), dict(gpu="l4", batch=2**70), dict(gpu="l4", batch=True),
                   dict(gpu=None), dict(gpu="l4", host_factor="2"), dict(gpu="l4", host_factor=0)]:
            with self.assertRaises(perfpred.InputError, msg=kw):
                perfpred.predict(RESNET18, **kw)
        with self.assertRaises(perfpred.InputError):
            perfpred.predict(42, gpu="l4", example_inputs=None)
        with self.assertRaises(perfpred.InputError):
            perfpred.predict(RESNET18, gpu="l4", example_inputs=[1])

    def test_spec_dict_errors_name_the_dict(self):
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.predict(RESNET18, gpu={"sm_count": -1})
        msg = str(ctx.exception)
        self.assertIn("gpu spec dict", msg)
        self.assertNotIn(tempfile.gettempdir(), msg)


class Devices(unittest.TestCase):
    def test_devices_match_cli(self):
        d = perfpred.devices()
        self.assertEqual(d.to_json(), cli("devices", "--json"))
        self.assertIn("a100-sxm4-40gb", d.ids())
        self.assertEqual(len(d), len(d.to_dict()["devices"]))
        self.assertEqual(next(iter(d))["id"], d.ids()[0])

    def test_gpu_matches_cli(self):
        for gid in ["h100-sxm5-80gb", "a100-sxm4-40gb:3g.20gb", "jetson-orin-nano-8gb@7w"]:
            try:
                want = cli("devices", "show", gid, "--json")
            except subprocess.CalledProcessError:
                continue  # an id this catalog spells otherwise; the others still check
            self.assertEqual(perfpred.gpu(gid).to_json(), want)
        self.assertEqual(perfpred.gpu("h100-sxm5-80gb").id, "h100-sxm5-80gb")


class Advise(unittest.TestCase):
    def test_select_matches_cli(self):
        want = cli("select", RESNET18, "--devices", "t4,l4,a100-sxm4-40gb", "--objective", "energy", "--batch", "8",
                   "--json")
        got = perfpred.select(RESNET18, ["t4", "l4", "a100-sxm4-40gb"], objective="energy", batch=8)
        self.assertEqual(got.to_json(), want)
        self.assertEqual(len(got.rows), 3)
        self.assertEqual(got.rows[0]["gpu"], got.best())
        self.assertEqual(got.rows[0]["rank"], 1)

    def test_select_cost_with_a_prices_dict(self):
        prices = {"schema_version": 1, "prices_usd_per_hour": {"t4": 0.35, "l4": 0.8}}
        got = perfpred.select(RESNET18, ["t4", "l4"], objective="cost", prices=prices)
        self.assertEqual({r["gpu"] for r in got.rows}, {"t4", "l4"})
        self.assertTrue(all(r["cost_usd_per_million_samples"] > 0 for r in got.rows))
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.select(RESNET18, ["t4"], objective="cost")
        self.assertIn("--prices", str(ctx.exception))

    def test_select_no_device_fits_is_a_result(self):
        got = perfpred.select(RESNET18, ["t4"], max_latency_ms=1e-6)
        self.assertIsNone(got.best())
        self.assertEqual(len(got.rejected), 1)
        self.assertTrue(got.rows[0]["violations"])

    def test_select_range_limits_match_cli(self):
        # A latency limit between the two devices' range high ends: one kept, one rejected on its range.
        ranges = perfpred.select(RESNET18, ["t4", "a100-sxm4-40gb"], batch=8).rows
        highs = sorted(r["latency_range_ms"]["high"] for r in ranges)
        limit = f"{(highs[0] + highs[1]) / 2:.4f}"
        want = cli("select", RESNET18, "--devices", "t4,a100-sxm4-40gb", "--batch", "8",
                   "--max-latency-range-high-ms", limit, "--max-power-range-high-w", "1000", "--json")
        got = perfpred.select(RESNET18, ["t4", "a100-sxm4-40gb"], batch=8, max_latency_range_high_ms=float(limit),
                              max_power_range_high_w=1000)
        self.assertEqual(got.to_json(), want)
        self.assertEqual(len(got.ranked), 1)
        self.assertIn("--max-latency-range-high-ms", got.rejected[0]["violations"][0])
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.select(RESNET18, ["t4"], max_latency_range_high_ms=8, bundle="default")
        self.assertIn("drop --bundle", str(ctx.exception))

    def test_select_from_bytes_names_the_model(self):
        with open(RESNET18, "rb") as f:
            got = perfpred.select(f.read(), ["t4"], name="r18")
        self.assertEqual(got.model, "r18")

    def test_sweep_rows(self):
        want = json.loads(cli("sweep", RESNET18, "--base-gpu", "a100-sxm4-40gb", "--vary", "sm_count=54:108:54",
                              "--vary", "mem_bandwidth_gbps=1000:2000:1000", "--json"))
        got = perfpred.sweep(RESNET18, "a100-sxm4-40gb", {"sm_count": (54, 108, 54), "mem_bandwidth_gbps": "1000:2000:1000"})
        self.assertEqual(len(got.rows), 4)
        for k in ("elapsed_s", "points_per_second"):  # timings differ between runs
            want.pop(k)
        d = got.to_dict()
        d.pop("elapsed_s"), d.pop("points_per_second")
        self.assertEqual(d, want)
        self.assertEqual(set(got.rows[0]) >= {"sm_count", "mem_bandwidth_gbps", "latency_ms", "fits"}, True)
        with self.assertRaises(perfpred.InputError):
            perfpred.sweep(RESNET18, "a100-sxm4-40gb", {"sm_count": (1, 2)})
        with self.assertRaises(perfpred.InputError):
            perfpred.sweep(RESNET18, "a100-sxm4-40gb", ["no_such_field=1:2:1"])

    def test_mig_matches_cli(self):
        want = cli("mig", RESNET18, "--gpu", "a100-sxm4-40gb", "--slo-ms", "20", "--json")
        got = perfpred.mig(RESNET18, "a100-sxm4-40gb", slo_ms=20)
        self.assertEqual(got.to_json(), want)
        self.assertEqual(len(got.rows), len(got.profiles))
        self.assertIn("latency_ms", got.rows[0])
        rc, err = cli_error("mig", RESNET18, "--gpu", "l4")
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.mig(RESNET18, "l4")
        self.assertEqual("perfpred: error: " + str(ctx.exception), err)

    def test_host_factor_matches_cli(self):
        """host_factor= is --host-factor on select, sweep and mig: the CLI's JSON at F=2 (slower than at F=1
        on a host-bound model), the CLI's one-line error out of range."""
        lenet = os.path.join(ZOO, "lenet5.onnx")
        calls = {
            "select": (["select", lenet, "--devices", "t4,a30"], lambda **kw: perfpred.select(lenet, ["t4", "a30"], **kw),
                       lambda d: d["ranked"][0]["prediction"]["latency_ms"]),
            "sweep": (["sweep", lenet, "--base-gpu", "a30", "--vary", "sm_count=28:56:28"],
                      lambda **kw: perfpred.sweep(lenet, "a30", {"sm_count": (28, 56, 28)}, **kw),
                      lambda d: d["points"][0]["latency_ms"]),
            "mig": (["mig", lenet, "--gpu", "a30"], lambda **kw: perfpred.mig(lenet, "a30", **kw),
                    lambda d: d["whole_gpu"]["latency_ms"]),
        }
        for name, (args, call, latency) in calls.items():
            want = json.loads(cli(*args, "--json", "--host-factor", "2"))
            got, base = call(host_factor=2).to_dict(), call().to_dict()
            for d in (want, got, base):
                d.pop("elapsed_s", None), d.pop("points_per_second", None)  # sweep timings differ between runs
            self.assertEqual(got, want, name)
            self.assertEqual(got["host_factor"], 2, name)
            self.assertNotIn("host_factor", base, name)
            self.assertGreater(latency(got), 1.5 * latency(base), name)
            self.assertEqual(call(host_factor=1).to_dict().get("host_factor"), None, name)
            rc, err = cli_error(*args, "--host-factor", "20")
            self.assertEqual(rc, 2)
            with self.assertRaises(perfpred.InputError) as ctx:
                call(host_factor=20)
            self.assertEqual("perfpred: error: " + str(ctx.exception), err)
            with self.assertRaises(perfpred.InputError):
                call(host_factor="2")

    def _decision_flag(self, batch, flag, **kw):
        """select, sweep and mig of ResNet-18 on an A100 with a CLI flag and its keyword: (name, CLI args, call,
        latency of a document, the keyword's document, the default document), the keyword's checked equal
        to the CLI's JSON."""
        b = ["--batch", str(batch)]
        calls = {
            "select": (["select", RESNET18, "--devices", "a100-sxm4-40gb", *b],
                       lambda **k: perfpred.select(RESNET18, ["a100-sxm4-40gb"], batch=batch, **k),
                       lambda d: d["ranked"][0]["prediction"]["latency_ms"]),
            "sweep": (["sweep", RESNET18, "--base-gpu", "a100-sxm4-40gb", "--vary", "sm_count=54:108:54", *b],
                      lambda **k: perfpred.sweep(RESNET18, "a100-sxm4-40gb", {"sm_count": (54, 108, 54)}, batch=batch, **k),
                      lambda d: d["points"][0]["latency_ms"]),
            "mig": (["mig", RESNET18, "--gpu", "a100-sxm4-40gb", *b],
                    lambda **k: perfpred.mig(RESNET18, "a100-sxm4-40gb", batch=batch, **k),
                    lambda d: d["whole_gpu"]["latency_ms"]),
        }
        out = []
        for name, (args, call, latency) in calls.items():
            want = json.loads(cli(*args, "--json", flag))
            got, base = call(**kw).to_dict(), call().to_dict()
            for d in (want, got, base):
                d.pop("elapsed_s", None), d.pop("points_per_second", None)  # sweep timings differ between runs
            self.assertEqual(got, want, name)
            out.append((name, args, call, latency, got, base))
        return out

    def test_cuda_graphs_matches_cli(self):
        """cuda_graphs=True is --cuda-graphs on select, sweep and mig: the CLI's JSON, echoed, and a batch-1 eager
        ResNet-18 (host-bound on an A100) faster replayed than dispatched."""
        for name, _, _, latency, got, base in self._decision_flag(1, "--cuda-graphs", cuda_graphs=True):
            self.assertIs(got["cuda_graphs"], True, name)
            self.assertNotIn("cuda_graphs", base, name)
            self.assertLess(latency(got), 0.8 * latency(base), name)

    def test_gpu_factor_matches_cli(self):
        """gpu_factor=1.5 is --gpu-factor 1.5 on select, sweep and mig: the CLI's JSON, echoed, and ResNet-18 at
        batch 64 on an A100 (GPU-bound) over 1.3x slower; predict() echoes it too."""
        for name, _, _, latency, got, base in self._decision_flag(64, "--gpu-factor=1.5", gpu_factor=1.5):
            self.assertEqual(got["gpu_factor"], 1.5, name)
            self.assertNotIn("gpu_factor", base, name)
            self.assertGreater(latency(got), 1.3 * latency(base), name)
        p = perfpred.predict(RESNET18, gpu="a100-sxm4-40gb", batch=64, gpu_factor=1.5, layers=False)
        self.assertEqual(p.to_dict()["gpu_factor"], 1.5)
        with self.assertRaises(perfpred.InputError):
            perfpred.predict(RESNET18, gpu="a100-sxm4-40gb", gpu_factor=5)

    def test_grad_mode_matches_cli(self):
        """grad_mode=True is --grad-mode on select, sweep and mig: the CLI's JSON, echoed, and a batch-1 eager
        ResNet-18 (host-bound on an A100) slower with autograd recording its forward than under no_grad."""
        for name, _, _, latency, got, base in self._decision_flag(1, "--grad-mode", grad_mode=True):
            self.assertIs(got["grad_mode"], True, name)
            self.assertNotIn("grad_mode", base, name)
            self.assertGreater(latency(got), 1.05 * latency(base), name)

    def test_channels_last_matches_cli(self):
        """channels_last=True is --channels-last on select, sweep and mig: the CLI's JSON, echoed (at FP32, where
        TF32 kernels read NCHW, only the eval-mode BatchNorms move: cuDNN's NHWC kernels instead of its NCHW one,
        a latency-bound block per plane), and the CLI's one-line error with TensorRT."""
        for name, args, call, latency, got, base in self._decision_flag(32, "--channels-last", channels_last=True):
            self.assertIs(got["channels_last"], True, name)
            self.assertNotIn("channels_last", base, name)
            self.assertLessEqual(latency(got), latency(base), name)
            self.assertGreater(latency(got), 0.9 * latency(base), name)
            rc, err = cli_error(*args, "--precision", "fp16", "--runtime", "tensorrt", "--channels-last")
            self.assertEqual(rc, 2, name)
            with self.assertRaises(perfpred.InputError) as ctx:
                call(precision="fp16", runtime="tensorrt", channels_last=True)
            self.assertEqual("perfpred: error: " + str(ctx.exception), err, name)

    def test_tf32_matches_cli(self):
        """tf32=False is --no-tf32 on select, sweep and mig: the CLI's JSON (a conv net on an A100: slower
        than with TF32), the CLI's one-line error at a precision other than fp32."""
        for name, args, call, latency, got, base in self._decision_flag(32, "--no-tf32", tf32=False):
            self.assertIs(got["allow_tf32"], False, name)
            self.assertNotIn("allow_tf32", base, name)
            self.assertGreater(latency(got), 1.2 * latency(base), name)
            rc, err = cli_error(*args, "--no-tf32", "--precision", "fp16")
            self.assertEqual(rc, 2)
            with self.assertRaises(perfpred.InputError) as ctx:
                call(tf32=False, precision="fp16")
            self.assertEqual("perfpred: error: " + str(ctx.exception), err)


class Pandas(unittest.TestCase):
    def test_to_pandas_only_where_pandas_is(self):
        r = perfpred.predict(RESNET18, gpu="l4")
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as ctx:
                r.to_pandas()
            self.assertIn("pandas", str(ctx.exception))
            return
        df = r.to_pandas()
        self.assertEqual(len(df), len(r.layers))


if __name__ == "__main__":
    if not os.path.isfile(RESNET18):
        print(f"skip: {RESNET18} missing")
        sys.exit(77)
    unittest.main(argv=sys.argv[:1], verbosity=1)
