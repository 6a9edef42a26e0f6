/* fw-exec-report.c: targets, verification and measurement in the batch report. */
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include <glib/gi18n-lib.h>

#include "fw-exec-report.h"
#include "fw-report-private.h"
#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-twin-time.h"
#include "graph/fw-graph-private.h"
#include "hw/fw-blas.h"

/* Every per-kernel row starts by naming its candidate. */
static void
begin_candidate (JsonBuilder *b, const FwPlan *plan, guint candidate)
{
  json_builder_begin_object (b);
  fw_json_member_int (b, "candidate", candidate);
  fw_json_member_string (b, "pattern", ((FwCandidate *) g_ptr_array_index (plan->candidates, candidate))->pattern);
}

static void
add_compare (JsonBuilder *b, const FwCompare *c, const FwTolerance *tol, gboolean pass)
{
  fw_json_member_bool (b, "pass", pass);
  fw_json_member_double (b, "max_abs_error", c->max_abs);
  fw_json_member_double (b, "max_rel_error", c->max_rel);
  fw_json_member_int (b, "failed_elements", c->n_failed);
  fw_json_member_int (b, "elements", c->n_elements);
  if (c->worst_index >= 0)
    fw_json_member_int (b, "worst_index", c->worst_index);
  if (c->nan_mismatch)
    fw_json_member_bool (b, "nan_mismatch", TRUE);
  if (tol != NULL)
    {
      json_builder_set_member_name (b, "tolerance");
      json_builder_begin_object (b);
      fw_json_member_double (b, "rel", tol->rel);
      fw_json_member_double (b, "abs", tol->abs);
      json_builder_end_object (b);
    }
}

static void
add_golden_error (JsonBuilder *b, const char *name, const FwGoldenError *e)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  fw_json_member_double (b, "max_abs_error", e->max_abs);
  fw_json_member_double (b, "max_rel_error", e->max_rel);
  fw_json_member_double (b, "cosine", e->cosine);
  fw_json_member_int (b, "failed_elements", e->n_failed);
  if (e->nan_mismatch)
    fw_json_member_bool (b, "nan_mismatch", TRUE);
  json_builder_end_object (b);
}

/* Golden policy: the unfused and the fused results against the golden run, beside fused-vs-unfused. */
static void
add_golden (JsonBuilder *b, const FwVerifyResult *v, const FwGoldenError *unfused, const FwGoldenError *fused,
            gboolean judged)
{
  if (v->policy != FW_VERIFY_POLICY_GOLDEN && !judged)
    return;
  json_builder_set_member_name (b, "golden");
  json_builder_begin_object (b);
  add_golden_error (b, "unfused", unfused);
  add_golden_error (b, "fused", fused);
  json_builder_end_object (b);
}

/* The host toolchain, before the host kernels. */
static void
add_host_toolchain (JsonBuilder *b, const FwTargets *t)
{
  if (t->toolchain != NULL)
    {
      fw_json_member_string (b, "compiler", fw_host_toolchain_get_compiler (t->toolchain));
      fw_json_member_string (b, "compiler_version", fw_host_toolchain_get_version (t->toolchain));
      fw_json_member_string (b, "flags", fw_host_toolchain_get_flags (t->toolchain));
    }
  else
    fw_json_member_string (b, "error", t->toolchain_error);
}

/* The Ascend kernel run on the twin against the reference values (docs/ascend-twin.md). */
void
fw_exec_report_add_twin (JsonBuilder *b, const FwTwinCheck *t, gdouble planner_s)
{
  json_builder_set_member_name (b, "twin");
  json_builder_begin_object (b);
  fw_json_member_bool (b, "ran", t->ran);
  fw_json_member_bool (b, "pass", t->pass);
  fw_json_member_double (b, "max_abs_error", t->max_abs);
  fw_json_member_double (b, "max_rel_error", t->max_rel);
  fw_json_member_double (b, "cosine", t->cosine);
  json_builder_set_member_name (b, "diagnostics");
  json_builder_begin_array (b);
  for (guint i = 0; i < t->diagnostics->len; i++)
    {
      const FwTwinDiagnostic *d = &g_array_index (t->diagnostics, FwTwinDiagnostic, i);

      json_builder_begin_object (b);
      fw_json_member_string (b, "code", d->code);
      fw_json_member_string (b, "message", d->message);
      fw_json_member_int (b, "line", d->line);
      fw_json_member_string (b, "file", d->file);
      fw_json_member_int (b, "count", d->count);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (t->ran)
    {
      fw_json_member_int (b, "mte2_bytes", (gint64) t->counts.mte2_bytes);
      fw_json_member_int (b, "mte3_bytes", (gint64) t->counts.mte3_bytes);
      fw_json_member_int (b, "vector_repeats", (gint64) t->counts.vector_repeats);
      fw_json_member_int (b, "vector_instructions", (gint64) t->counts.vector_instructions);
      /* The twin's time estimate beside the planner's for the same kernel (docs/ascend-twin.md). */
      fw_json_member_double (b, "estimated_us", t->estimated_s * 1e6);
      fw_json_member_double (b, "planner_estimated_us", planner_s * 1e6);
      json_builder_set_member_name (b, "estimated_pipes_us");
      json_builder_begin_object (b);
      fw_json_member_double (b, "mte2", t->pipe_s[0] * 1e6);
      fw_json_member_double (b, "vector", t->pipe_s[1] * 1e6);
      fw_json_member_double (b, "mte3", t->pipe_s[2] * 1e6);
      fw_json_member_double (b, "cube", t->pipe_s[3] * 1e6);
      json_builder_end_object (b);
    }
  /* Golden policy: the reference's and the twin's outputs against the group run widened (the verdict). */
  if (t->ran && t->golden != FW_DTYPE_UNDEFINED)
    {
      json_builder_set_member_name (b, "golden");
      json_builder_begin_object (b);
      fw_json_member_string (b, "dtype", fw_dtype_name (t->golden));
      add_golden_error (b, "unfused", &t->unfused_golden);
      add_golden_error (b, "fused", &t->fused_golden);
      json_builder_end_object (b);
    }
  if (t->error != NULL)
    fw_json_member_string (b, "error", t->error);
  json_builder_end_object (b);
}

/* Which code computes a host kernel's compute root: oneDNN's version, ISA and chosen implementation, our own
 * kernel's ISA and name, or the fallback and why. */
void
fw_report_add_host_producer (JsonBuilder *b, const FwSuperKernelProducer *p)
{
  if (p->backend == NULL)
    return;
  json_builder_set_member_name (b, "producer");
  json_builder_begin_object (b);
  fw_json_member_string (b, "backend", p->backend);
  /* Our own kernels behind a oneDNN call (winograd, gemv) have an ISA and an implementation but no library. */
  if (p->library != NULL)
    fw_json_member_string (b, "library", p->library);
  if (p->isa != NULL)
    fw_json_member_string (b, "isa", p->isa);
  if (p->implementation != NULL)
    fw_json_member_string (b, "implementation", p->implementation);
  if (p->fallback != NULL)
    fw_json_member_string (b, "fallback", p->fallback);
  json_builder_end_object (b);
}

static void
add_target_kernel (JsonBuilder *b, const FwPlan *plan, FwTargetId target, const FwTargetKernel *k)
{
  const FwKernelSource *src = k->sources[target];

  if (target == FW_TARGET_HOST)
    {
      fw_json_member_string (b, "status", k->host_compiled ? "compiled" : src ? "not-compiled" : "not-generated");
      if (src != NULL)
        {
          /* Known before any compiler ran: the hash is of the generated text. */
          g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, fw_kernel_source_get_main (src), -1);
          fw_json_member_string (b, "source_sha256", hash);
        }
      if (k->host_compiled)
        fw_json_member_string (b, "object_sha256", fw_superkernel_get_object_hash (k->host));
      /* What each thread's row scratch holds: the plan's carried values, row by row. */
      if (k->host != NULL)
        {
          fw_json_member_int (b, "row_scratch_elements", fw_superkernel_get_scratch_elements (k->host));
          fw_report_add_host_producer (b, fw_superkernel_get_producer (k->host));
        }
    }
  else
    fw_json_member_string (b, "status", src != NULL ? "generated" : "not-generated");
  if (target == FW_TARGET_ASCEND && k->ascend != NULL)
    {
      /* What the kernel's Init allocates at its tile: the plan's UB figure when it priced these buffers. */
      const FwAscendTiling *t = fw_ascend_kernel_get_tiling (k->ascend);
      fw_json_member_int (b, "tile_elements", t->tile_length);
      fw_json_member_int (b, "ub_bytes", (gint64) t->kernel_ub_bytes);
    }
  if (target == FW_TARGET_ASCEND && k->twin != NULL)
    fw_exec_report_add_twin (b, k->twin,
                             fw_candidate_get_cost (g_ptr_array_index (plan->candidates, k->candidate))->kernel_time_s);
  if (k->errors[target] != NULL)
    fw_json_member_string (b, "message", k->errors[target]);
}

/* Spearman's rank correlation of the twin's and the planner's time estimates over the kernels that ran on the
 * twin: where they disagree, a kernel does what the planner did not price. null below two kernels. */
static void
add_twin_rank_correlation (JsonBuilder *b, const FwPlan *plan, const FwTargets *t)
{
  g_autoptr(GArray) twin = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_autoptr(GArray) planner = g_array_new (FALSE, FALSE, sizeof (gdouble));

  for (guint i = 0; i < t->kernels->len; i++)
    {
      const FwTargetKernel *k = g_ptr_array_index (t->kernels, i);
      gdouble p;

      if (k->twin == NULL || !k->twin->ran)
        continue;
      p = fw_candidate_get_cost (g_ptr_array_index (plan->candidates, k->candidate))->kernel_time_s;
      g_array_append_val (twin, k->twin->estimated_s);
      g_array_append_val (planner, p);
    }
  if (twin->len == 0)
    return;
  fw_json_member_double (b, "twin_rank_correlation",
                         fw_twin_rank_correlation ((gdouble *) twin->data, (gdouble *) planner->data, twin->len));
}

static void
add_targets (JsonBuilder *b, const FwPlan *plan, const FwTargets *t)
{
  json_builder_set_member_name (b, "targets");
  json_builder_begin_object (b);
  for (guint target = 0; target < FW_N_TARGETS; target++)
    {
      if (!t->enabled[target])
        continue;
      json_builder_set_member_name (b, fw_target_name (target));
      json_builder_begin_object (b);
      if (target == FW_TARGET_HOST)
        add_host_toolchain (b, t);
      json_builder_set_member_name (b, "kernels");
      json_builder_begin_array (b);
      for (guint i = 0; i < t->kernels->len; i++)
        {
          FwTargetKernel *k = g_ptr_array_index (t->kernels, i);

          begin_candidate (b, plan, k->candidate);
          add_target_kernel (b, plan, target, k);
          if (target == FW_TARGET_ASCEND)
            {
              const FwKernelSpec *spec = ((FwCandidate *) g_ptr_array_index (plan->candidates, k->candidate))->spec;
              fw_json_member_string (b, "form", fw_ascend_kernel_form (spec));
              if (fw_kernel_spec_get_form_reason (spec) != NULL)
                fw_json_member_string (b, "form_reason", fw_kernel_spec_get_form_reason (spec));
            }
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      if (target == FW_TARGET_ASCEND)
        add_twin_rank_correlation (b, plan, t);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

static void
add_verification (JsonBuilder *b, const FwPlan *plan, const FwTargets *t, const FwVerifyResult *v)
{
  json_builder_set_member_name (b, "verification");
  json_builder_begin_object (b);
  fw_json_member_bool (b, "pass", v->pass);
  fw_json_member_int (b, "seed", (gint64) v->seed);
  fw_json_member_string (b, "policy", fw_verify_policy_name (v->policy));
  if (v->policy == FW_VERIFY_POLICY_GOLDEN)
    {
      fw_json_member_string (b, "golden_dtype", fw_dtype_name (v->golden));
      fw_json_member_double (b, "golden_slack", FW_GOLDEN_SLACK);
    }
  json_builder_set_member_name (b, "groups");
  json_builder_begin_array (b);
  for (guint i = 0; i < v->groups->len; i++)
    {
      const FwGroupCheck *g = &g_array_index (v->groups, FwGroupCheck, i);

      begin_candidate (b, plan, g->candidate);
      add_compare (b, &g->isolated, &g->tolerance, g->pass);
      if (g->seeded)
        fw_json_member_bool (b, "seeded_inputs", TRUE);
      json_builder_set_member_name (b, "in_model");
      json_builder_begin_object (b);
      add_compare (b, &g->in_model, NULL, g->in_model.pass);
      json_builder_end_object (b);
      add_golden (b, v, &g->unfused_golden, &g->fused_golden, FALSE);
      if (g->integer)
        {
          fw_json_member_bool (b, "integer", TRUE);
          if (g->quant_step > 0)
            fw_json_member_double (b, "quantisation_step", g->quant_step);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  /* Groups without a kernel ran on reference kernels: nothing of theirs was checked (and pass is false). */
  json_builder_set_member_name (b, "unverified");
  json_builder_begin_array (b);
  for (guint i = 0; i < v->unverified->len; i++)
    json_builder_add_int_value (b, g_array_index (v->unverified, guint, i));
  json_builder_end_array (b);
  /* Single ops the fused run computed on host kernels instead of their reference ones, each checked. */
  json_builder_set_member_name (b, "node_kernels");
  json_builder_begin_array (b);
  for (guint i = 0; v->nodes != NULL && i < v->nodes->len; i++)
    {
      const FwNodeCheck *n = &g_array_index (v->nodes, FwNodeCheck, i);

      json_builder_begin_object (b);
      fw_json_member_string (b, "node", n->kernel->node->name);
      fw_json_member_string (b, "op", n->kernel->node->op_type);
      fw_json_member_string (b, "producer", n->kernel->producer);
      add_compare (b, &n->compare, &n->tolerance, n->pass);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "outputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < v->outputs->len; i++)
    {
      const FwOutputCheck *o = &g_array_index (v->outputs, FwOutputCheck, i);

      json_builder_begin_object (b);
      fw_json_member_string (b, "name", o->name);
      add_compare (b, &o->compare, &o->tolerance, o->pass);
      add_golden (b, v, &o->unfused_golden, &o->fused_golden, o->golden_judged);
      if (o->golden_judged)
        fw_json_member_bool (b, "golden_judged", TRUE);
      if (v->quantised)
        {
          json_builder_set_member_name (b, "quantisation");
          json_builder_begin_object (b);
          add_golden_error (b, "unfused", &o->unfused_quantisation);
          add_golden_error (b, "fused", &o->fused_quantisation);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_measurement (JsonBuilder *b, const FwPlan *plan, const FwMeasureResult *m)
{
  json_builder_set_member_name (b, "measurement");
  json_builder_begin_object (b);
  fw_json_member_string (b, "profile", plan->profile->name);
  fw_json_member_int (b, "threads", m->n_threads);
  fw_json_member_int (b, "warmup", m->warmup);
  fw_json_member_int (b, "repeats", m->repeats);
  json_builder_set_member_name (b, "model");
  json_builder_begin_object (b);
  fw_json_member_double (b, "unfused_ms", m->unfused_s * 1e3);
  fw_json_member_double (b, "fused_ms", m->fused_s * 1e3);
  fw_json_member_int (b, "channels_last_values", m->channels_last);
  fw_json_member_double (b, "speedup", m->speedup);
  fw_json_member_double (b, "predicted_speedup",
                         plan->after.time_s > 0 ? plan->before.time_s / plan->after.time_s : NAN);
  json_builder_end_object (b);
  fw_json_member_double (b, "rank_correlation", m->rank_correlation);
  fw_json_member_double (b, "median_abs_error_percent", m->median_abs_error * 100.0);
  json_builder_set_member_name (b, "calibrated");
  json_builder_add_boolean_value (b, m->calibrated);
  fw_json_member_double (b, "rank_correlation_uncalibrated", m->rank_correlation_uncalibrated);
  fw_json_member_double (b, "median_abs_error_percent_uncalibrated", m->median_abs_error_uncalibrated * 100.0);
  /* Which OpenBLAS computed the reference side's products: a speed-up is only as good as its baseline. */
  if (fw_blas_library () != NULL)
    {
      json_builder_set_member_name (b, "reference_blas");
      json_builder_begin_object (b);
      fw_json_member_string (b, "library", fw_blas_library ());
      if (fw_blas_core_name () != NULL)
        fw_json_member_string (b, "core", fw_blas_core_name ());
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < m->kernels->len; i++)
    {
      const FwKernelTiming *k = &g_array_index (m->kernels, FwKernelTiming, i);

      begin_candidate (b, plan, k->candidate);
      fw_json_member_double (b, "kernel_us", k->kernel_s * 1e6);
      fw_json_member_double (b, "reference_us", k->reference_s * 1e6);
      fw_json_member_double (b, "measured_speedup", k->measured_speedup);
      fw_json_member_double (b, "predicted_speedup", k->predicted_speedup);
      fw_json_member_double (b, "model_error_percent", k->model_error * 100.0);
      fw_json_member_double (b, "predicted_speedup_uncalibrated", k->predicted_speedup_uncalibrated);
      fw_json_member_double (b, "model_error_percent_uncalibrated", k->model_error_uncalibrated * 100.0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

void
fw_exec_report_add (JsonNode *report, const FwPlan *plan, const FwTargets *targets, const FwVerifyResult *verify,
                    const FwMeasureResult *measure)
{
  static const char * const members[] = { "targets", "verification", "measurement" };
  JsonObject *root = json_node_get_object (report);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) built = NULL;
  JsonObject *sections;

  json_builder_begin_object (b);
  if (targets != NULL)
    add_targets (b, plan, targets);
  if (verify != NULL)
    add_verification (b, plan, targets, verify);
  if (measure != NULL)
    add_measurement (b, plan, measure);
  json_builder_end_object (b);
  built = json_builder_get_root (b);
  sections = json_node_get_object (built);
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    if (json_object_has_member (sections, members[i]))
      json_object_set_member (root, members[i], json_object_dup_member (sections, members[i]));
}

static gdouble
get_double (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  return n != NULL && !JSON_NODE_HOLDS_NULL (n) ? json_node_get_double (n) : NAN;
}

static const char *
get_string (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_string (n) : "";
}

/* How the Ascend kernels did on the twin, and what each one that did not pass gave first. */
/* How far the predicted speed-ups were from the measured ones, with the calibration and without. */
static void
append_model_error (GString *md, JsonObject *m)
{
  gboolean calibrated = json_object_has_member (m, "calibrated") && json_object_get_boolean_member (m, "calibrated");

  g_string_append_printf (md, _("Median absolute error of the predicted speed-ups: %.0f %%."),
                          get_double (m, "median_abs_error_percent"));
  if (calibrated)
    g_string_append_printf (md, _(" The profile is calibrated; without its calibration: rank correlation %.2f, "
                                  "median absolute error %.0f %%."),
                            get_double (m, "rank_correlation_uncalibrated"),
                            get_double (m, "median_abs_error_percent_uncalibrated"));
  else
    g_string_append (md, _(" The profile is not calibrated (fusion-workbench --calibrate)."));
  if (json_object_has_member (m, "reference_blas"))
    {
      JsonObject *blas = json_object_get_object_member (m, "reference_blas");

      /* TRANSLATORS: the first %s is OpenBLAS's kernel family ("Haswell"), the second its file */
      g_string_append_printf (md, _(" The reference side's products: OpenBLAS %s (%s)."),
                              json_object_get_string_member_with_default (blas, "core", "?"),
                              json_object_get_string_member_with_default (blas, "library", "?"));
    }
  g_string_append (md, "\n\n");
}

static void
append_twin_markdown (GString *md, JsonObject *ascend, JsonArray *ks)
{
  guint ran = 0, passed = 0;

  for (guint i = 0; i < json_array_get_length (ks); i++)
    {
      JsonObject *k = json_array_get_object_element (ks, i);
      JsonObject *t = json_object_has_member (k, "twin") ? json_object_get_object_member (k, "twin") : NULL;

      ran += t != NULL;
      passed += t != NULL && json_object_get_boolean_member (t, "pass");
    }
  if (ran == 0)
    return;
  g_string_append_printf (md, _("On the Ascend C twin: %u of %u kernels pass.\n"), passed, ran);
  if (json_object_has_member (ascend, "twin_rank_correlation"))
    g_string_append_printf (md, _("Rank correlation of the twin's and the planner's time estimates: %.3f.\n"),
                            get_double (ascend, "twin_rank_correlation"));
  for (guint i = 0; i < json_array_get_length (ks); i++)
    {
      JsonObject *k = json_array_get_object_element (ks, i);
      JsonObject *t = json_object_has_member (k, "twin") ? json_object_get_object_member (k, "twin") : NULL;
      JsonArray *d = t ? json_object_get_array_member (t, "diagnostics") : NULL;

      if (t == NULL || json_object_get_boolean_member (t, "pass"))
        continue;
      g_string_append_printf (md, "- #%" PRId64 ": ", json_object_get_int_member (k, "candidate"));
      if (d != NULL && json_array_get_length (d) > 0)
        {
          JsonObject *first = json_array_get_object_element (d, 0);
          g_autofree char *where = g_strdup_printf ("%s %s:%" PRId64 " ", get_string (first, "code"),
                                                    get_string (first, "file"), json_object_get_int_member (first, "line"));
          fw_markdown_append_cell (md, where);
          fw_markdown_append_cell (md, get_string (first, "message"));
        }
      else if (json_object_has_member (t, "error"))
        fw_markdown_append_cell (md, get_string (t, "error"));
      else
        g_string_append_printf (md, _("cosine %.6f, max abs error %.3g"), get_double (t, "cosine"),
                                get_double (t, "max_abs_error"));
      g_string_append_c (md, '\n');
    }
}

void
fw_exec_report_markdown (GString *md, JsonObject *root)
{
  if (json_object_has_member (root, "targets"))
    {
      JsonObject *t = json_object_get_object_member (root, "targets");

      g_string_append_printf (md, "\n## %s\n\n", _("Generated kernels"));
      if (json_object_has_member (t, "host"))
        {
          JsonObject *h = json_object_get_object_member (t, "host");
          JsonArray *ks = json_object_get_array_member (h, "kernels");
          guint compiled = 0;

          for (guint i = 0; i < json_array_get_length (ks); i++)
            compiled += g_strcmp0 (get_string (json_array_get_object_element (ks, i), "status"), "compiled") == 0;
          g_string_append_printf (md, _("Host: %u of %u SuperKernels compiled"), compiled, json_array_get_length (ks));
          if (json_object_has_member (h, "compiler"))
            {
              g_string_append (md, " (");
              fw_markdown_append_cell (md, get_string (h, "compiler_version"));
              g_string_append (md, ")");
            }
          g_string_append (md, ".\n\n");
          for (guint i = 0; i < json_array_get_length (ks); i++)
            {
              JsonObject *k = json_array_get_object_element (ks, i);
              if (json_object_has_member (k, "message"))
                {
                  g_string_append_printf (md, "- #%" PRId64 " ", json_object_get_int_member (k, "candidate"));
                  fw_markdown_append_cell (md, get_string (k, "message"));
                  g_string_append_c (md, '\n');
                }
            }
        }
      if (json_object_has_member (t, "ascend"))
        {
          JsonArray *ks = json_object_get_array_member (json_object_get_object_member (t, "ascend"), "kernels");
          guint generated = 0;

          for (guint i = 0; i < json_array_get_length (ks); i++)
            generated += g_strcmp0 (get_string (json_array_get_object_element (ks, i), "status"), "generated") == 0;
          g_string_append_printf (md, _("Ascend C: %u of %u kernels generated.\n"), generated,
                                  json_array_get_length (ks));
          append_twin_markdown (md, json_object_get_object_member (t, "ascend"), ks);
        }
    }
  if (json_object_has_member (root, "verification"))
    {
      JsonObject *v = json_object_get_object_member (root, "verification");
      JsonArray *groups = json_object_get_array_member (v, "groups");
      JsonArray *outputs = json_object_get_array_member (v, "outputs");
      gboolean golden = g_strcmp0 (get_string (v, "policy"), "golden") == 0;

      g_string_append_printf (md, "\n## %s\n\n%s\n\n", _("Verification"),
                              json_object_get_boolean_member (v, "pass") ? _("Every group and output within tolerance.")
                                                                         : _("**Mismatch**: see the rows marked FAIL."));
      if (golden)
        g_string_append_printf (md, _("Policy golden: unfused and fused results against the model run widened to %s.\n\n"),
                                get_string (v, "golden_dtype"));
      g_string_append_printf (md, "| %s | %s | %s | %s | %s |", _("candidate"), _("pattern"), _("result"),
                              _("max abs error"), _("max rel error"));
      if (golden)
        g_string_append_printf (md, " %s | %s | %s | %s |", _("unfused vs golden, max abs"), _("fused vs golden, max abs"),
                                _("unfused vs golden, cosine"), _("fused vs golden, cosine"));
      g_string_append_printf (md, "\n|---|---|---|---|---|%s\n", golden ? "---|---|---|---|" : "");
      for (guint i = 0; i < json_array_get_length (groups) + json_array_get_length (outputs); i++)
        {
          gboolean is_group = i < json_array_get_length (groups);
          JsonObject *g = is_group ? json_array_get_object_element (groups, i)
                                   : json_array_get_object_element (outputs, i - json_array_get_length (groups));
          if (is_group)
            {
              g_string_append_printf (md, "| #%" PRId64 " | ", json_object_get_int_member (g, "candidate"));
              fw_markdown_append_cell (md, get_string (g, "pattern"));
            }
          else
            {
              g_string_append_printf (md, "| %s | ", _("output"));
              fw_markdown_append_cell (md, get_string (g, "name"));
            }
          g_string_append_printf (md, " | %s | %.3g | %.3g |", json_object_get_boolean_member (g, "pass") ? "ok" : "FAIL",
                                  get_double (g, "max_abs_error"), get_double (g, "max_rel_error"));
          if (golden && json_object_has_member (g, "golden"))
            {
              JsonObject *gd = json_object_get_object_member (g, "golden");
              JsonObject *u = json_object_get_object_member (gd, "unfused"), *f = json_object_get_object_member (gd, "fused");
              g_string_append_printf (md, " %.3g | %.3g | %.6f | %.6f |", get_double (u, "max_abs_error"),
                                      get_double (f, "max_abs_error"), get_double (u, "cosine"), get_double (f, "cosine"));
            }
          g_string_append_c (md, '\n');
        }
    }
  if (json_object_has_member (root, "measurement"))
    {
      JsonObject *m = json_object_get_object_member (root, "measurement");
      JsonObject *model = json_object_get_object_member (m, "model");
      JsonArray *ks = json_object_get_array_member (m, "kernels");

      g_string_append_printf (md, "\n## %s\n\n", _("Measurement"));
      g_string_append_printf (md, _("Whole model on the host: unfused %.3f ms, fused %.3f ms, speed-up %.2fx "
                                    "(predicted on %s: %.2fx). Rank correlation of predicted and measured "
                                    "speed-ups: %.2f.\n\n"),
                              get_double (model, "unfused_ms"), get_double (model, "fused_ms"),
                              get_double (model, "speedup"), get_string (m, "profile"),
                              get_double (model, "predicted_speedup"), get_double (m, "rank_correlation"));
      append_model_error (md, m);
      g_string_append_printf (md, "| %s | %s | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|---|\n",
                              _("candidate"), _("pattern"), _("kernel µs"), _("unfused µs"), _("measured speed-up"),
                              _("predicted speed-up"), _("predicted, uncalibrated"));
      for (guint i = 0; i < json_array_get_length (ks); i++)
        {
          JsonObject *k = json_array_get_object_element (ks, i);
          g_string_append_printf (md, "| #%" PRId64 " | ", json_object_get_int_member (k, "candidate"));
          fw_markdown_append_cell (md, get_string (k, "pattern"));
          g_string_append_printf (md, " | %.1f | %.1f | %.2fx | %.2fx | %.2fx |\n", get_double (k, "kernel_us"),
                                  get_double (k, "reference_us"), get_double (k, "measured_speedup"),
                                  get_double (k, "predicted_speedup"),
                                  get_double (k, "predicted_speedup_uncalibrated"));
        }
    }
}
