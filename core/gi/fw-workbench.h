/* fw-workbench.h: Fusion Workbench for scripts, through GObject Introspection (docs/python.md):
 *
 *   from gi.repository import FusionWorkbench
 *   wb = FusionWorkbench.Workbench.new()
 *   wb.bind("batch", 8); wb.set_strategy("aggressive")
 *   wb.open("model.onnx", None)
 *   for i in range(wb.get_n_fusions()): print(wb.get_fusion(i).get_pattern())
 *   wb.verify(None); wb.export("out", None)
 *
 * The same pipeline batch mode and the window run (core/session: open, check, export), behind a small API
 * whose types the introspection scanner can describe. Every failure a user can cause is a GError. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FW_TYPE_FUSION (fw_fusion_get_type ())
G_DECLARE_FINAL_TYPE (FwFusion, fw_fusion, FW, FUSION, GObject)

/* One candidate of the plan, as it stood when fw_workbench_get_fusions was called. */
guint               fw_fusion_get_id             (FwFusion *self);
const char         *fw_fusion_get_pattern        (FwFusion *self);
const char         *fw_fusion_get_kind           (FwFusion *self);
/* "proposed", "accepted", "vetoed" or "refused". */
const char         *fw_fusion_get_status         (FwFusion *self);
/**
 * fw_fusion_get_nodes:
 *
 * Returns: (transfer none) (array zero-terminated=1): the member nodes' names, in execution order
 */
const char * const *fw_fusion_get_nodes          (FwFusion *self);
gdouble             fw_fusion_get_ub_percent     (FwFusion *self);
gdouble             fw_fusion_get_time_saved_us  (FwFusion *self);
/* "", "pass", "fail" or "unverified" (after fw_workbench_verify). */
const char         *fw_fusion_get_verification   (FwFusion *self);

#define FW_TYPE_WORKBENCH (fw_workbench_get_type ())
G_DECLARE_FINAL_TYPE (FwWorkbench, fw_workbench, FW, WORKBENCH, GObject)

FwWorkbench        *fw_workbench_new             (void);
/* Before fw_workbench_open: the hardware profile (ascend-910b, ascend-310p, host or a YAML file), the
 * strategy (conservative, balanced, aggressive), rule files or folders and whitelists (in order), and
 * symbolic dims. */
void                fw_workbench_set_profile     (FwWorkbench  *self,
                                                  const char   *profile);
gboolean            fw_workbench_set_strategy    (FwWorkbench  *self,
                                                  const char   *strategy,
                                                  GError      **error);
/* Fusion off (AUTOFUSION_ENABLE=0's effect): only the totals are planned. */
void                fw_workbench_set_enabled     (FwWorkbench  *self,
                                                  gboolean      enabled);
void                fw_workbench_add_rules       (FwWorkbench  *self,
                                                  const char   *path);
void                fw_workbench_add_whitelist   (FwWorkbench  *self,
                                                  const char   *path);
/* An operator registry file or folder (docs/custom-ops.md); the ones added are installed for the process
 * when a model is opened. */
void                fw_workbench_add_ops         (FwWorkbench  *self,
                                                  const char   *path);
void                fw_workbench_bind            (FwWorkbench  *self,
                                                  const char   *name,
                                                  gint64        value);
/**
 * fw_workbench_open:
 * @cancellable: (nullable)
 *
 * Loads, infers, plans and applies the whitelists, as the window opens a model.
 */
gboolean            fw_workbench_open            (FwWorkbench  *self,
                                                  const char   *path,
                                                  GCancellable *cancellable,
                                                  GError      **error);
/* The plan's candidates (0 before a model is open), and one of them as it stands now. */
guint               fw_workbench_get_n_fusions   (FwWorkbench  *self);
/**
 * fw_workbench_get_fusion:
 *
 * Returns: (transfer full) (nullable): candidate @index of the plan, or NULL past the last
 */
FwFusion           *fw_workbench_get_fusion      (FwWorkbench  *self,
                                                  guint         index);
gboolean            fw_workbench_accept          (FwWorkbench  *self,
                                                  guint         id,
                                                  GError      **error);
gboolean            fw_workbench_veto            (FwWorkbench  *self,
                                                  guint         id,
                                                  GError      **error);
/* Accepts or vetoes every candidate of a pattern (or kind), those re-planning finds later too. */
gboolean            fw_workbench_decide_pattern  (FwWorkbench  *self,
                                                  const char   *pattern,
                                                  gboolean      accept,
                                                  GError      **error);
gboolean            fw_workbench_undo            (FwWorkbench  *self);
/* Estimated time saved by the plan as it stands, in per cent of the unfused model's. */
gdouble             fw_workbench_get_saving_percent (FwWorkbench *self);
/**
 * fw_workbench_verify:
 * @cancellable: (nullable)
 *
 * Generates and compiles the host SuperKernels and the Ascend C kernels, runs the fused model against the
 * unfused one on seeded inputs and every Ascend kernel on the twin. TRUE when that could be done; whether
 * everything matched is fw_workbench_get_verified.
 */
gboolean            fw_workbench_verify          (FwWorkbench  *self,
                                                  GCancellable *cancellable,
                                                  GError      **error);
gboolean            fw_workbench_get_verified    (FwWorkbench  *self);
/**
 * fw_workbench_export:
 * @cancellable: (nullable)
 *
 * Writes the fused model, the whitelist, the kernel package and the JSON report into dir, as --export does.
 */
gboolean            fw_workbench_export          (FwWorkbench  *self,
                                                  const char   *dir,
                                                  GCancellable *cancellable,
                                                  GError      **error);
/**
 * fw_workbench_get_report:
 *
 * Returns: (transfer full): the JSON report (docs/report-schema.md) of the plan and of the last verify
 */
char               *fw_workbench_get_report      (FwWorkbench  *self);

G_END_DECLS
