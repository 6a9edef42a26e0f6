/* fw-twin-command.c: --twin: an exported kernel package's Ascend kernels re-run on the twin, as a table or
 * as the report's per-kernel twin JSON. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "codegen/fw-twin-time.h"
#include "fw-batch.h"
#include "fw-error.h"
#include "fw-twin-command.h"
#include "report/fw-exec-report.h"
#include "session/fw-package-twin.h"

static gdouble
rank_correlation (const FwPackageTwinResult *r)
{
  g_autofree gdouble *twin = g_new0 (gdouble, r->kernels->len + 1);
  g_autofree gdouble *planner = g_new0 (gdouble, r->kernels->len + 1);

  for (guint i = 0; i < r->kernels->len; i++)
    {
      const FwPackageTwinKernel *k = g_ptr_array_index (r->kernels, i);
      twin[i] = k->check->estimated_s;
      planner[i] = k->planner_s > 0 ? k->planner_s : NAN;
    }
  return fw_twin_rank_correlation (twin, planner, r->kernels->len);
}

static void
print_json (const char *dir, const FwPackageTwinResult *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  gdouble rho = rank_correlation (r);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "package");
  json_builder_add_string_value (b, dir);
  json_builder_set_member_name (b, "profile");
  json_builder_add_string_value (b, r->profile);
  json_builder_set_member_name (b, "pass");
  json_builder_add_boolean_value (b, fw_package_twin_result_pass (r));
  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->kernels->len; i++)
    {
      const FwPackageTwinKernel *k = g_ptr_array_index (r->kernels, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, k->id);
      json_builder_set_member_name (b, "folder");
      json_builder_add_string_value (b, k->folder);
      json_builder_set_member_name (b, "pattern");
      json_builder_add_string_value (b, k->pattern);
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, k->source);
      fw_exec_report_add_twin (b, k->check, k->planner_s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "skipped");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->skipped->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (r->skipped, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "twin_rank_correlation");
  if (isfinite (rho))
    json_builder_add_double_value (b, rho);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

/* One kernel's row: verdict, figures, and what went wrong first. */
static void
print_row (const FwPackageTwinKernel *k)
{
  const FwTwinCheck *c = k->check;
  const char *verdict = c->pass ? _("pass") : c->ran ? _("FAIL") : _("not run");

  printf ("%-6s %-8s %10.7f %10.3g %10.3g %9.2f %9.2f  ", k->id, verdict, c->cosine, c->max_abs, c->max_rel,
          c->estimated_s * 1e6, k->planner_s * 1e6);
  if (c->diagnostics->len > 0)
    {
      const FwTwinDiagnostic *d = &g_array_index (c->diagnostics, FwTwinDiagnostic, 0);
      printf ("%s %s:%d: %s", d->code, d->file, d->line, d->message);
      if (c->diagnostics->len > 1)
        printf (_(" (and %u more)"), c->diagnostics->len - 1);
    }
  else if (c->error != NULL)
    printf ("%s", c->error);
  else
    printf ("%s", k->pattern);
  printf ("\n");
}

static void
print_table (const FwPackageTwinResult *r)
{
  guint passed = 0;
  gdouble rho = rank_correlation (r);

  printf ("%-6s %-8s %10s %10s %10s %9s %9s  %s\n", _("kernel"), _("result"), _("cosine"), _("max abs"), _("max rel"),
          _("twin µs"), _("plan µs"), _("pattern or first problem"));
  for (guint i = 0; i < r->kernels->len; i++)
    {
      const FwPackageTwinKernel *k = g_ptr_array_index (r->kernels, i);
      print_row (k);
      passed += k->check->pass && k->check->diagnostics->len == 0;
    }
  for (guint i = 0; i < r->skipped->len; i++)
    printf (_("skipped %s\n"), (const char *) g_ptr_array_index (r->skipped, i));
  printf (_("%u of %u kernels pass on the Ascend C twin (profile %s).\n"), passed, r->kernels->len, r->profile);
  if (isfinite (rho))
    printf (_("Rank correlation of the twin's and the planner's time estimates: %.3f.\n"), rho);
}

int
fw_twin_command_run (const char *dir, const char *const *kernels, const char *format, const char *kernel_cache,
                     guint64 seed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPackageTwinResult) result = NULL;
  gboolean json = format != NULL && strcmp (format, "json") == 0;

  if (format != NULL && !json && strcmp (format, "table") != 0)
    {
      g_printerr ("fusion-workbench: --twin: %s\n", _("--format must be table or json"));
      return FW_EXIT_BAD_INPUT;
    }
  result = fw_package_twin_run (dir, kernels, kernel_cache, seed, &error);
  if (result == NULL)
    {
      g_printerr ("fusion-workbench: --twin: %s\n", error->message);
      return error->domain == FW_ERROR && error->code == FW_ERROR_INTERNAL ? FW_EXIT_INTERNAL : FW_EXIT_BAD_INPUT;
    }
  if (result->kernels->len == 0)
    {
      for (guint i = 0; i < result->skipped->len; i++)
        g_printerr ("fusion-workbench: --twin: %s\n", (const char *) g_ptr_array_index (result->skipped, i));
      g_printerr ("fusion-workbench: --twin: %s: %s\n", dir, _("the package has no Ascend kernel to run"));
      return FW_EXIT_BAD_INPUT;
    }
  if (json)
    print_json (dir, result);
  else
    print_table (result);
  return fw_package_twin_result_pass (result) ? FW_EXIT_OK : FW_EXIT_FAIL_ON;
}
