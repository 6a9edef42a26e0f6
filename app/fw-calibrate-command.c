/* fw-calibrate-command.c: fusion-workbench --calibrate: the microbenchmarks with their progress on standard
 * error, then each fitted number of the host profile, old → new, on standard output. */
#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "fw-batch.h"
#include "fw-calibrate-command.h"
#include "fw-error.h"
#include "hw/fw-host-calibrate.h"

static void
progress (gdouble fraction, const char *bench, gpointer data)
{
  (void) data;
  if (bench != NULL)
    g_printerr (_("calibrating: %3.0f %% %s\n"), fraction * 100.0, bench);
}

static void
print_change (const char *what, gdouble before, gdouble after, gdouble scale, const char *unit)
{
  printf ("  %-28s %12.4g → %-12.4g %s\n", what, before / scale, after / scale, unit);
}

int
fw_calibrate_command_run (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) before = NULL;
  FwCalAgreement agreement = { 0 };
  g_autoptr(FwProfile) after = fw_host_calibrate (&before, &agreement, progress, NULL, NULL, &error);

  if (after == NULL)
    {
      g_printerr ("fusion-workbench: %s\n", error->message);
      return g_error_matches (error, FW_ERROR, FW_ERROR_INTERNAL) ? FW_EXIT_INTERNAL : FW_EXIT_BAD_INPUT;
    }
  printf (_("Host profile calibrated (%s):\n"), after->source);
  print_change (_("memory bandwidth"), before->hbm_bytes_per_s, after->hbm_bytes_per_s, 1e9, "GB/s");
  print_change (_("vector throughput (fp32)"), before->vector_flops_per_s, after->vector_flops_per_s, 1e9, "GFLOP/s");
  print_change (_("matrix throughput (fp32)"), before->cube_flops_per_s, after->cube_flops_per_s, 1e9, "GFLOP/s");
  print_change (_("launch overhead"), before->launch_overhead_s, after->launch_overhead_s, 1e-6, "µs");
  print_change (_("sync overhead"), before->sync_overhead_s, after->sync_overhead_s, 1e-6, "µs");
  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    {
      g_autofree char *what = g_strdup_printf (_("factor %s"), fw_cost_class_key (c));
      print_change (what, fw_profile_class_factor (before, c), fw_profile_class_factor (after, c), 1, "");
    }
  if (agreement.contention > FW_CAL_CONTENDED)
    g_printerr (_("fusion-workbench: warning: the machine was busy: the median round of “%s” took %.1f times its "
                  "fastest, so the fit may be off; calibrate again when it is quieter\n"),
                fw_cal_bench_name (agreement.contended), agreement.contention);
  else if (agreement.settled)
    printf (_("  %u rounds: the last moved no fitted number by more than %.0f %%\n"), agreement.rounds,
            FW_CAL_AGREEMENT * 100.0);
  else if (agreement.spread <= FW_CAL_BUSY)
    printf (_("  %u rounds: the last still moved the fitted “%s” by %.0f %%\n"), agreement.rounds,
            agreement.worst, agreement.spread * 100.0);
  else
    g_printerr (_("fusion-workbench: warning: the machine was busy: after %u rounds the last still moved the "
                  "fitted “%s” by %.0f %%, so the fit may be off; calibrate again when it is quieter\n"),
                agreement.rounds, agreement.worst, agreement.spread * 100.0);
  return FW_EXIT_OK;
}
