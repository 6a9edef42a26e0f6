/* fw-superkernel-report.c: the report's "superkernel" member (fw-superkernel-report.h). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>

#include "fw-superkernel-report.h"
#include "codegen/fw-ascend-twin.h"
#include "fw-exec-report.h"
#include "fw-report-private.h"

/* Reports are compared byte for byte across runs: estimates are rounded to a thousandth of a µs. */
static void
add_us (JsonBuilder *b, const char *name, gdouble seconds)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, round (seconds * 1e9) / 1e3);
}

static void
add_kernel (JsonBuilder *b, const FwSkKernel *k)
{
  json_builder_begin_object (b);
  fw_json_member_int (b, "step", k->step);
  json_builder_set_member_name (b, "candidate");
  if (k->candidate != G_MAXUINT)
    json_builder_add_int_value (b, k->candidate);
  else
    json_builder_add_null_value (b);
  fw_json_member_string (b, "node", k->node->name);
  fw_json_member_string (b, "op", k->node->op_type);
  fw_json_member_string (b, "type", fw_sk_core_type_name (k->type));
  fw_json_member_int (b, "cores", k->cores);
  fw_json_member_string (b, "sync", fw_sk_sync_name (k->sync));
  fw_json_member_string (b, "sync_value", k->sync_value ? k->sync_value->name : NULL);
  json_builder_end_object (b);
}

static void
add_scope (JsonBuilder *b, const FwSkScope *s)
{
  json_builder_begin_object (b);
  fw_json_member_string (b, "name", s->name);
  fw_json_member_int (b, "n_kernels", s->kernels->len);
  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < s->kernels->len; i++)
    add_kernel (b, &g_array_index (s->kernels, FwSkKernel, i));
  json_builder_end_array (b);
  fw_json_member_int (b, "cores", s->cores);
  fw_json_member_int (b, "feed_sync", s->feed_sync);
  json_builder_set_member_name (b, "break_reason");
  json_builder_begin_object (b);
  fw_json_member_string (b, "code", fw_sk_code_name (s->end));
  fw_json_member_string (b, "cann_code", fw_sk_code_cann_name (s->end));
  fw_json_member_string (b, "node", s->end_node ? s->end_node->name : NULL);
  fw_json_member_string (b, "message", s->end_message);
  json_builder_end_object (b);
  fw_json_member_int (b, "syncs_kept", s->syncs_kept);
  fw_json_member_int (b, "syncs_removed", s->syncs_removed);
  add_us (b, "estimated_saving_us", s->saving_s);
  json_builder_end_object (b);
}

/* The scopes the user chose (the command line's, the session's, a whitelist's), as they were given. */
static void
add_user_scopes (JsonBuilder *b, const FwSkPlan *sk)
{
  json_builder_set_member_name (b, "user_scopes");
  json_builder_begin_array (b);
  for (guint i = 0; i < sk->user_scopes->len; i++)
    {
      const FwSkUserScope *u = g_ptr_array_index (sk->user_scopes, i);

      json_builder_begin_object (b);
      fw_json_member_string (b, "name", u->name);
      fw_json_member_string (b, "scope", u->prefix);
      json_builder_set_member_name (b, "nodes");
      if (u->nodes != NULL)
        {
          json_builder_begin_array (b);
          for (guint k = 0; u->nodes[k]; k++)
            json_builder_add_string_value (b, u->nodes[k]);
          json_builder_end_array (b);
        }
      else
        json_builder_add_null_value (b);
      fw_json_member_string (b, "source", u->source);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

void
fw_superkernel_report_add (JsonNode *report, const FwSkPlan *sk)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint in_scopes = 0;

  for (guint i = 0; i < sk->scopes->len; i++)
    in_scopes += ((FwSkScope *) g_ptr_array_index (sk->scopes, i))->kernels->len;
  json_builder_begin_object (b);
  fw_json_member_string (b, "mode", sk->options.mode == FW_SK_OFF ? "off" : "auto");
  json_builder_set_member_name (b, "name_scopes");
  json_builder_begin_array (b);
  for (guint i = 0; sk->options.scopes && sk->options.scopes[i]; i++)
    json_builder_add_string_value (b, sk->options.scopes[i]);
  json_builder_end_array (b);
  add_user_scopes (b, sk);
  fw_json_member_int (b, "kernels", sk->n_kernels);
  fw_json_member_int (b, "kernels_in_scopes", in_scopes);
  fw_json_member_int (b, "launches_after", sk->launches_after);
  add_us (b, "estimated_saving_us", sk->saving_s);
  json_builder_set_member_name (b, "scopes");
  json_builder_begin_array (b);
  for (guint i = 0; i < sk->scopes->len; i++)
    add_scope (b, g_ptr_array_index (sk->scopes, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "refusals");
  json_builder_begin_array (b);
  for (guint i = 0; i < sk->refusals->len; i++)
    {
      const FwSkRefusal *r = g_ptr_array_index (sk->refusals, i);

      json_builder_begin_object (b);
      fw_json_member_string (b, "code", fw_sk_code_name (r->code));
      fw_json_member_string (b, "cann_code", fw_sk_code_cann_name (r->code));
      fw_json_member_string (b, "node", r->node->name);
      fw_json_member_string (b, "op", r->node->op_type);
      fw_json_member_string (b, "message", r->message);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_object_set_member (json_node_get_object (report), "superkernel", json_builder_get_root (b));
}

void
fw_superkernel_report_add_twin (JsonNode *report, GPtrArray *checks)
{
  JsonObject *root = json_node_get_object (report);
  JsonArray *scopes;

  if (!json_object_has_member (root, "superkernel"))
    return;
  scopes = json_object_get_array_member (json_object_get_object_member (root, "superkernel"), "scopes");
  for (guint i = 0; i < json_array_get_length (scopes) && i < checks->len; i++)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      JsonNode *node;

      json_builder_begin_object (b);
      fw_exec_report_add_twin (b, g_ptr_array_index (checks, i), NAN);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      json_object_set_member (json_array_get_object_element (scopes, i), "twin",
                              json_node_ref (json_object_get_member (json_node_get_object (node), "twin")));
      json_node_unref (node);
    }
}

void
fw_superkernel_report_markdown (GString *md, JsonObject *root)
{
  JsonObject *sk;
  JsonArray *scopes;

  if (!json_object_has_member (root, "superkernel"))
    return;
  sk = json_object_get_object_member (root, "superkernel");
  scopes = json_object_get_array_member (sk, "scopes");
  g_string_append_printf (md, "\n## %s\n\n", _("SuperKernel scopes"));
  {
    g_autofree char *n_scopes = g_strdup_printf ("%u", json_array_get_length (scopes));
    g_autofree char *in = g_strdup_printf ("%" PRId64, json_object_get_int_member (sk, "kernels_in_scopes"));
    g_autofree char *all = g_strdup_printf ("%" PRId64, json_object_get_int_member (sk, "kernels"));
    g_autofree char *after = g_strdup_printf ("%" PRId64, json_object_get_int_member (sk, "launches_after"));

    /* TRANSLATORS: scopes, kernels in them, all kernels, launches after, µs saved */
    g_string_append_printf (md, _("%s scopes hold %s of %s kernels: %s launches after fusion and scopes, %.2f µs "
                                  "saved (estimated)."), n_scopes, in, all, after,
                            json_object_get_double_member (sk, "estimated_saving_us"));
    g_string_append (md, "\n\n");
  }
  if (json_array_get_length (scopes) == 0)
    return;
  g_string_append_printf (md, "| %s | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|\n", _("scope"),
                          _("kernels"), _("cores"), _("barriers kept / removed"), _("µs saved"), _("ended"));
  for (guint i = 0; i < json_array_get_length (scopes); i++)
    {
      JsonObject *s = json_array_get_object_element (scopes, i);
      JsonObject *end = json_object_get_object_member (s, "break_reason");
      const char *code = json_object_get_string_member_with_default (end, "code", NULL);
      g_autofree char *ended = g_strdup_printf ("%s%s%s", code ? code : "", code ? " " : "",
                                                json_object_get_string_member_with_default (end, "message", ""));

      g_string_append (md, "| ");
      fw_markdown_append_cell (md, json_object_get_string_member (s, "name"));
      g_string_append_printf (md, " | %" PRId64 " | %" PRId64 " | %" PRId64 " / %" PRId64 " | %.2f | ",
                              json_object_get_int_member (s, "n_kernels"), json_object_get_int_member (s, "cores"),
                              json_object_get_int_member (s, "syncs_kept"),
                              json_object_get_int_member (s, "syncs_removed"),
                              json_object_get_double_member (s, "estimated_saving_us"));
      fw_markdown_append_cell (md, ended);
      g_string_append (md, " |\n");
    }
}
