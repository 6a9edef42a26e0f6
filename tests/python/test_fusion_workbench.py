"""The Python face: FusionWorkbench through gi, and optimize_model on top (docs/python.md).

Run by meson test with GI_TYPELIB_PATH, LD_LIBRARY_PATH and PYTHONPATH pointing into the build; the
example model and its binding come from FW_EXAMPLE_MODEL."""

import json
import os
import shutil
import tempfile
import unittest

import gi

gi.require_version("FusionWorkbench", "0")
from gi.repository import FusionWorkbench, GLib  # noqa: E402

from fusion_workbench import optimize_model  # noqa: E402

MODEL = os.environ["FW_EXAMPLE_MODEL"]
BIND = {"batch": 8}


class WorkbenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fw-py-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def opened(self, strategy="balanced"):
        wb = FusionWorkbench.Workbench.new()
        wb.bind("batch", 8)
        wb.set_strategy(strategy)
        wb.open(MODEL, None)
        return wb

    def fusions(self, wb):
        return [wb.get_fusion(i) for i in range(wb.get_n_fusions())]

    def test_plan_decide_undo(self):
        wb = self.opened()
        fusions = self.fusions(wb)
        self.assertGreater(len(fusions), 0)
        self.assertIsNone(wb.get_fusion(len(fusions)))
        first = fusions[0]
        self.assertEqual(first.get_status(), "proposed")
        self.assertGreater(len(first.get_nodes()), 1)
        saving = wb.get_saving_percent()
        self.assertGreater(saving, 0)
        wb.veto(first.get_id())
        self.assertEqual(wb.get_fusion(0).get_status(), "vetoed")
        self.assertLess(wb.get_saving_percent(), saving)
        self.assertTrue(wb.undo())
        self.assertEqual(wb.get_fusion(0).get_status(), "proposed")
        wb.accept(first.get_id())
        self.assertEqual(wb.get_fusion(0).get_status(), "accepted")
        with self.assertRaises(GLib.Error):
            wb.veto(9999)

    def test_verify_export_report(self):
        wb = self.opened()
        self.assertFalse(wb.get_verified())
        wb.verify(None)
        self.assertTrue(wb.get_verified())
        self.assertTrue(all(f.get_verification() == "pass" for f in self.fusions(wb)
                            if f.get_status() == "proposed"))
        out = os.path.join(self.tmp, "out")
        wb.export(out, None)
        names = os.listdir(out)
        self.assertTrue(any(n.endswith(".fused.onnx") for n in names), names)
        self.assertIn("kernels", names)
        report = json.loads(wb.get_report())
        self.assertTrue(report["verification"]["pass"])
        self.assertEqual(len(report["targets"]["host"]["kernels"]), wb.get_n_fusions())

    def test_errors(self):
        wb = FusionWorkbench.Workbench.new()
        with self.assertRaises(GLib.Error) as e:
            wb.set_strategy("fastest")
        self.assertIn("fastest", e.exception.message)
        with self.assertRaises(GLib.Error):
            wb.accept(0)  # nothing open yet
        missing = os.path.join(self.tmp, "nope.onnx")
        with self.assertRaises(GLib.Error) as e:
            wb.open(missing, None)
        self.assertIn("nope.onnx", e.exception.message)
        self.assertEqual(wb.get_n_fusions(), 0)


    def test_ops(self):
        good = os.path.join(self.tmp, "ops.yaml")
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(good, "w") as f:
            f.write("ops:\n  - {domain: com.example, type: FastGelu, class: elementwise, inputs: 1,\n"
                    "     host_expression: x0 * 0.5f}\n")
        with open(bad, "w") as f:
            f.write("ops:\n  - {domain: com.example, type: FastGelu, class: elemwise, inputs: 1}\n")
        wb = FusionWorkbench.Workbench.new()
        wb.add_ops(bad)
        with self.assertRaises(GLib.Error) as e:
            wb.open(MODEL, None)
        self.assertIn("bad.yaml:2:50: unknown op class", e.exception.message)
        wb = FusionWorkbench.Workbench.new()
        wb.bind("batch", 8)
        wb.add_ops(good)
        wb.open(MODEL, None)
        self.assertGreater(wb.get_n_fusions(), 0)


class OptimizeModelTest(unittest.TestCase):
    def test_levels(self):
        off = optimize_model(MODEL, optimization_level=0, bindings=BIND)
        self.assertEqual(off.fusions, [])
        conservative = optimize_model(MODEL, optimization_level=1, bindings=BIND)
        aggressive = optimize_model(MODEL, optimization_level=3, bindings=BIND)
        self.assertGreaterEqual(aggressive.saving_percent, conservative.saving_percent)
        self.assertEqual(aggressive.report["plan"]["strategy"], "aggressive")
        with self.assertRaises(ValueError):
            optimize_model(MODEL, optimization_level=4, bindings=BIND)

    def test_fusion_patterns(self):
        result = optimize_model(MODEL, bindings=BIND, fusion_patterns=[
            {"name": "my_norm", "pattern": ["LayerNorm"], "strategy": "sequential_fuse"}])
        self.assertIn("my_norm", [f["pattern"] for f in result.fusions])
        with self.assertRaises(GLib.Error) as e:
            optimize_model(MODEL, bindings=BIND, fusion_patterns=[{"name": "x", "pattern": ["NoSuchOp"]}])
        self.assertIn("NoSuchOp", e.exception.message)
        with self.assertRaises(TypeError):
            optimize_model(MODEL, bindings=BIND, fusion_patterns=[42])

    def test_export(self):
        with tempfile.TemporaryDirectory() as out:
            result = optimize_model(MODEL, bindings=BIND, verify=True, export_dir=out)
            self.assertTrue(result.verified)
            self.assertTrue(os.path.exists(os.path.join(out, "kernels", "manifest.json")))


if __name__ == "__main__":
    unittest.main()
