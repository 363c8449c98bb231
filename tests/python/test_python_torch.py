"""perfpred.predict on a live torch.nn.Module: exported in memory without weights, with a dynamic batch, the
same prediction as the zoo's file of the same network; the caller's module is left as it was.
Usage: python3 test_python_torch.py PERFPRED_BINARY REPO_ROOT  (exit 0 pass, 77 skip, else fail)."""

import os
import sys
import unittest

BIN, ROOT = sys.argv[1], sys.argv[2]
RESNET18 = os.path.join(ROOT, "models", "zoo", "resnet18.onnx")

try:
    import perfpred
except ImportError as e:
    print(f"skip: the perfpred module is not importable ({e})")
    sys.exit(77)
try:
    import torch
    import torchvision
except ImportError as e:
    print(f"skip: torch/torchvision missing ({e}); Debian: apt-get install python3-torchvision")
    sys.exit(77)


class Module(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.net = torchvision.models.resnet18()
        cls.x = torch.randn(1, 3, 224, 224)

    def test_same_prediction_as_the_zoo_file(self):
        # The zoo file is this network exported the same way (tools/export_zoo.py): equal FLOPs per layer
        # and the same latency, whatever the module's weights.
        by_module = perfpred.predict(self.net, example_inputs=self.x, gpu="l4", batch=8, name="resnet18").to_dict()
        by_file = perfpred.predict(RESNET18, gpu="l4", batch=8).to_dict()
        self.assertEqual(sum(l["flops"] for l in by_module["layers"]), sum(l["flops"] for l in by_file["layers"]))
        self.assertEqual(by_module["memory"]["weights_bytes"], by_file["memory"]["weights_bytes"])
        self.assertAlmostEqual(by_module["latency_ms"], by_file["latency_ms"], delta=by_file["latency_ms"] * 0.01)
        self.assertEqual(by_module["model"], "resnet18")

    def test_batch_from_the_example_and_dynamic(self):
        r1 = perfpred.predict(self.net, example_inputs=self.x, gpu="a100-sxm4-40gb")
        self.assertEqual(r1.batch, 1)
        self.assertEqual(r1.model, "ResNet")
        r4 = perfpred.predict(self.net, example_inputs=torch.randn(4, 3, 224, 224), gpu="a100-sxm4-40gb")
        self.assertEqual(r4.batch, 4)
        r64 = perfpred.predict(self.net, example_inputs=self.x, gpu="a100-sxm4-40gb", batch=64)
        self.assertEqual(r64.batch, 64)
        self.assertGreater(r64.latency_ms, r1.latency_ms)

    def test_training_step(self):
        r = perfpred.predict(self.net, example_inputs=self.x, gpu="a100-sxm4-40gb", batch=32, mode="training",
                             optimizer="adam")
        self.assertGreater(r.memory["optimizer_state_bytes"], 0)
        self.assertGreater(r.breakdown["optimizer_ms"], 0)

    def test_the_module_is_left_alone(self):
        net = torchvision.models.resnet18()
        net.train()
        before = {k: v.clone() for k, v in net.state_dict().items()}
        perfpred.predict(net, example_inputs=self.x, gpu="t4")
        self.assertTrue(net.training)
        for k, v in net.state_dict().items():
            self.assertTrue(torch.equal(v, before[k]), k)

    def test_select_and_sweep_take_a_module(self):
        s = perfpred.select(self.net, ["t4", "l4"], example_inputs=self.x, name="r18")
        self.assertEqual(s.model, "r18")
        self.assertEqual(len(s.rows), 2)
        w = perfpred.sweep(self.net, "l4", {"sm_count": (30, 60, 30)}, example_inputs=self.x)
        self.assertEqual(w.model, "ResNet")
        self.assertEqual(len(w.rows), 2)

    def test_errors(self):
        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.predict(self.net, gpu="l4")
        self.assertIn("example_inputs", str(ctx.exception))

        class Broken(torch.nn.Module):
            def forward(self, x):
                raise RuntimeError("this model cannot run\nsecond line")

        with self.assertRaises(perfpred.InputError) as ctx:
            perfpred.predict(Broken(), example_inputs=self.x, gpu="l4")
        self.assertIn("Broken", str(ctx.exception))
        self.assertNotIn("\n", str(ctx.exception))
        with self.assertRaises(perfpred.InputError):
            perfpred.predict(self.net, example_inputs="not a tensor", gpu="l4")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
