"""Fusion Workbench from Python, in the one-call form the graph-autofusion articles show.

    from fusion_workbench import optimize_model
    result = optimize_model("bert.onnx", fusion_patterns=[
        {"name": "matmul_bias_relu", "pattern": ["MatMul", "BiasAdd", "ReLU"],
         "conditions": [{"matmul_m_dim_ge": 128}]}],
        optimization_level=3, bindings={"batch": 8}, export_dir="out")
    print(result.saving_percent, [f["pattern"] for f in result.fusions])

Underneath is the FusionWorkbench GObject API (``from gi.repository import FusionWorkbench``), which the
class ``Workbench`` there exposes in full (docs/python.md).
"""

import json
import os
import tempfile

import gi

gi.require_version("FusionWorkbench", "0")
from gi.repository import FusionWorkbench  # noqa: E402

__all__ = ["FusionWorkbench", "OptimizedModel", "optimize_model", "LEVELS"]

# optimization_level → strategy; 0 plans nothing (fusion off), as AUTOFUSION_ENABLE=0.
LEVELS = {0: None, 1: "conservative", 2: "balanced", 3: "aggressive"}


class OptimizedModel:
    """What optimize_model planned: the fusions, the JSON report as a dict, and the workbench itself for
    further decisions (accept, veto, undo, verify, export)."""

    def __init__(self, workbench, export_dir):
        self.workbench = workbench
        self.export_dir = export_dir

    @property
    def fusions(self):
        return [{"id": f.get_id(), "pattern": f.get_pattern(), "kind": f.get_kind(), "status": f.get_status(),
                 "nodes": list(f.get_nodes()), "ub_percent": f.get_ub_percent(),
                 "time_saved_us": f.get_time_saved_us(), "verification": f.get_verification()}
                for f in (self.workbench.get_fusion(i) for i in range(self.workbench.get_n_fusions()))]

    @property
    def report(self):
        return json.loads(self.workbench.get_report())

    @property
    def saving_percent(self):
        return self.workbench.get_saving_percent()

    @property
    def verified(self):
        return self.workbench.get_verified()


def _rules_file(patterns, folder):
    """fusion_patterns as a rule file: dicts in the articles' dialect (name, pattern, strategy, conditions)
    or paths to rule files of either format."""
    paths, dialect = [], []
    for p in patterns:
        if isinstance(p, (str, os.PathLike)):
            paths.append(os.fspath(p))
        elif isinstance(p, dict):
            dialect.append(p)
        else:
            raise TypeError("fusion_patterns items are rule dicts or rule file paths, not %r" % (p,))
    if dialect:
        path = os.path.join(folder, "fusion_patterns.yaml")
        with open(path, "w", encoding="utf-8") as f:
            # JSON is YAML: the rule reader takes it as a fusion_rules file.
            json.dump({"fusion_rules": dialect}, f, indent=1)
        paths.append(path)
    return paths


def optimize_model(model, fusion_patterns=(), optimization_level=2, bindings=None, profile=None,
                   whitelists=(), verify=False, export_dir=None):
    """Loads model (a path), plans its fusions with the given rules at the given level, optionally verifies
    the fused model against the unfused one and writes the export; returns an OptimizedModel. Raises
    gi.repository.GLib.GError for bad input (a file, a rule, a dim), ValueError for a bad level."""
    if optimization_level not in LEVELS:
        raise ValueError("optimization_level must be 0, 1, 2 or 3, not %r" % (optimization_level,))
    wb = FusionWorkbench.Workbench.new()
    if LEVELS[optimization_level] is None:
        wb.set_enabled(False)
    else:
        wb.set_strategy(LEVELS[optimization_level])
    if profile is not None:
        wb.set_profile(profile)
    for name, value in (bindings or {}).items():
        wb.bind(name, int(value))
    for w in whitelists:
        wb.add_whitelist(os.fspath(w))
    with tempfile.TemporaryDirectory(prefix="fw-rules-") as folder:
        for path in _rules_file(fusion_patterns, folder):
            wb.add_rules(path)
        wb.open(os.fspath(model), None)
    if verify:
        wb.verify(None)
    if export_dir is not None:
        wb.export(os.fspath(export_dir), None)
    return OptimizedModel(wb, export_dir)
