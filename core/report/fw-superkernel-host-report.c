/* fw-superkernel-host-report.c: the host target's part of the report's "superkernel" member: each scope's
 * host programs with their arenas, verification and measured saving (schema in docs/report-schema.md). */
#include "config.h"

#include <math.h>

#include "fw-superkernel-report.h"
#include "fw-report-private.h"

static const FwScopeCheck *
check_for (const FwScopeCheckResult *check, const FwHostScope *s)
{
  for (guint i = 0; check != NULL && i < check->scopes->len; i++)
    if (g_array_index (check->scopes, FwScopeCheck, i).scope == &s->kernel)
      return &g_array_index (check->scopes, FwScopeCheck, i);
  return NULL;
}

static void
add_us_or_null (JsonBuilder *b, const char *name, gboolean known, gdouble seconds)
{
  json_builder_set_member_name (b, name);
  if (known)
    json_builder_add_double_value (b, round (seconds * 1e9) / 1e3);
  else
    json_builder_add_null_value (b);
}

/* Each sub-kernel: what it is, which library computes its root (as targets.host.kernels[].producer), and
 * whether it runs in the program's team. */
static void
add_units (JsonBuilder *b, const FwHostScope *s)
{
  json_builder_set_member_name (b, "units");
  json_builder_begin_array (b);
  for (guint u = 0; u < s->units->len; u++)
    {
      FwSuperKernel *unit = g_ptr_array_index (s->units, u);
      const FwScopeMember *m = &g_array_index (s->members, FwScopeMember, u);
      /* A view is always a single op; a group's sub-kernel is named by its first node. */
      const FwNode *node = m->node != NULL ? m->node
                                           : g_ptr_array_index (fw_superkernel_get_candidate (unit)->nodes, 0);

      json_builder_begin_object (b);
      fw_json_member_string (b, "kind", unit == NULL ? "view" : m->node != NULL ? "single_op" : "group");
      fw_json_member_string (b, "node", node->name);
      if (unit != NULL)
        fw_report_add_host_producer (b, fw_superkernel_get_producer (unit));
      fw_json_member_bool (b, "team", fw_host_scope_unit_in_team (s, u));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_program (JsonBuilder *b, const FwHostScope *s, const FwScopeCheck *c, gboolean verified, gboolean measured)
{
  json_builder_begin_object (b);
  fw_json_member_string (b, "name", s->name);
  fw_json_member_int (b, "first_kernel", s->first_kernel);
  fw_json_member_int (b, "n_kernels", s->n_kernels);
  fw_json_member_int (b, "sub_kernels", s->members->len);
  fw_json_member_int (b, "inputs", s->inputs->len);
  fw_json_member_int (b, "outputs", s->outputs->len);
  fw_json_member_int (b, "arena_buffers", s->buffers->len);
  fw_json_member_int (b, "arena_bytes", s->arena_bytes);
  fw_json_member_int (b, "output_bytes", s->output_bytes);
  fw_json_member_int (b, "peak_bytes", s->arena_bytes + s->output_bytes);
  fw_json_member_int (b, "interpreter_peak_bytes", s->interpreter_peak_bytes);
  json_builder_set_member_name (b, "end");
  json_builder_begin_object (b);
  fw_json_member_string (b, "code", s->end_code);
  fw_json_member_string (b, "message", s->end_message);
  json_builder_end_object (b);
  fw_json_member_bool (b, "compiled", s->compiled);
  fw_json_member_string (b, "error", s->error);
  fw_json_member_bool (b, "contracted", c != NULL && c->contracted);
  json_builder_set_member_name (b, "pass");
  if (c != NULL && verified)
    json_builder_add_boolean_value (b, c->pass);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "max_abs_error");
  if (c != NULL && verified)
    json_builder_add_double_value (b, c->isolated.max_abs);
  else
    json_builder_add_null_value (b);
  add_us_or_null (b, "measured_saving_us", c != NULL && measured, c ? c->members_s - c->scope_s : 0);
  json_builder_set_member_name (b, "teams");
  json_builder_add_int_value (b, s->n_teams);
  add_units (b, s);
  json_builder_end_object (b);
}

void
fw_superkernel_report_add_host (JsonNode *report, const FwHostScopes *host, const FwScopeCheckResult *check)
{
  JsonObject *sk = json_object_get_object_member (json_node_get_object (report), "superkernel");
  JsonArray *scopes = sk ? json_object_get_array_member (sk, "scopes") : NULL;
  gboolean verified = check != NULL && check->verified;
  gboolean measured = check != NULL && check->measured;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint in_programs = 0;

  if (scopes == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (scopes); i++)
    {
      g_autoptr(JsonBuilder) sb = json_builder_new ();
      gint64 arena = 0, peak = 0;
      gdouble saving = 0;
      guint n = 0;

      json_builder_begin_object (sb);
      json_builder_set_member_name (sb, "programs");
      json_builder_begin_array (sb);
      for (guint p = 0; p < host->scopes->len; p++)
        {
          const FwHostScope *s = g_ptr_array_index (host->scopes, p);
          const FwScopeCheck *c = check_for (check, s);

          if (s->sk_scope != i)
            continue;
          add_program (sb, s, c, verified, measured);
          /* The programs of one scope run one after another: the most any holds at once. */
          arena = MAX (arena, s->arena_bytes);
          peak = MAX (peak, s->interpreter_peak_bytes);
          saving += c ? c->members_s - c->scope_s : 0;
          in_programs += s->n_kernels;
          n++;
        }
      json_builder_end_array (sb);
      fw_json_member_int (sb, "arena_bytes", arena);
      fw_json_member_int (sb, "interpreter_peak_bytes", peak);
      add_us_or_null (sb, "measured_saving_us", measured && n > 0, saving);
      json_builder_end_object (sb);
      json_object_set_member (json_array_get_object_element (scopes, i), "host",
                              n > 0 ? json_builder_get_root (sb) : json_node_new (JSON_NODE_NULL));
    }
  json_builder_begin_object (b);
  fw_json_member_int (b, "programs", host->scopes->len);
  fw_json_member_int (b, "kernels_in_programs", in_programs);
  json_builder_set_member_name (b, "cuts");
  json_builder_begin_array (b);
  for (guint i = 0; i < host->cuts->len; i++)
    {
      const FwHostScopeCut *cut = g_ptr_array_index (host->cuts, i);

      json_builder_begin_object (b);
      fw_json_member_string (b, "code", FW_SK_HOST_CODE_NAME);
      fw_json_member_int (b, "scope", cut->sk_scope);
      fw_json_member_int (b, "kernel", cut->kernel);
      fw_json_member_string (b, "node", cut->node->name);
      fw_json_member_string (b, "op", cut->node->op_type);
      fw_json_member_string (b, "message", cut->message);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "pass");
  if (verified)
    json_builder_add_boolean_value (b, check->pass);
  else
    json_builder_add_null_value (b);
  add_us_or_null (b, "fused_us", measured, measured ? check->fused_s : 0);
  add_us_or_null (b, "scoped_us", measured, measured ? check->scoped_s : 0);
  json_builder_end_object (b);
  json_object_set_member (sk, "host", json_builder_get_root (b));
}
