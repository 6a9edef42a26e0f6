/* fw-host-calibrate.h: fitting the `host` profile's numbers to this machine.
 *
 * The first-use probe (fw-host-probe.c) measures one bandwidth and one FLOP rate. A calibration times a
 * short set of microbenchmarks (fw-host-bench.h): the triad, the interpreter's elementwise loops per class
 * (simple, divide, transcendental, reduce), float products of three size classes, and OpenMP's fork, join
 * and barrier; fits the profile's bandwidth, vector and matrix rates, launch and sync overheads and the
 * per-class factors (fw-profile.h) to them, and caches the result beside the probe's. Loading `host` then
 * applies it. Only the host profile is ever calibrated: the Ascend profiles keep their sourced numbers. */
#pragma once

#include <gio/gio.h>

#include "hw/fw-profile.h"

G_BEGIN_DECLS

typedef enum {
  FW_CAL_STREAM,          /* work: bytes moved, all threads */
  FW_CAL_SIMPLE,          /* work: the cost model's FLOPs, one core */
  FW_CAL_DIVIDE,
  FW_CAL_TRANSCENDENTAL,
  FW_CAL_REDUCE,
  FW_CAL_GEMM_SMALL,      /* work: FLOPs of the product, the BLAS's threads */
  FW_CAL_GEMM_MEDIUM,
  FW_CAL_GEMM_LARGE,
  FW_CAL_FORK_JOIN,       /* work 0: seconds of one empty parallel region */
  FW_CAL_BARRIER,         /* work 0: seconds of one barrier */
  FW_CAL_N_BENCHES
} FwCalBench;

typedef struct
{
  FwCalBench bench;
  gdouble    work;
  gdouble    seconds;
} FwCalSample;

typedef struct
{
  gdouble hbm_bytes_per_s;
  gdouble vector_flops_per_s;   /* the simple class's rate, all cores */
  gdouble cube_flops_per_s;     /* the large products' rate */
  gdouble launch_overhead_s;
  gdouble sync_overhead_s;
  gdouble class_factor[FW_COST_N_CLASSES];
} FwCalFit;

/* Called from the thread that calibrates, before each benchmark: fraction done and the benchmark's name. */
typedef void (*FwCalProgressFunc) (gdouble     fraction,
                                   const char *bench,
                                   gpointer    user_data);

const char *fw_cal_bench_name           (FwCalBench         bench);
/* Times every benchmark, three rounds keeping each timing's fastest (a few seconds; about 12 s on two
 * loaded cores): FwCalSample. n_threads: the parallel regions' and the triad's threads (the loops run on
 * one core, the products on the BLAS's threads). */
GArray     *fw_host_calibration_measure (guint              n_threads,
                                         FwCalProgressFunc  progress,
                                         gpointer           progress_data,
                                         GCancellable      *cancellable,
                                         GError           **error);
/* Each benchmark's rate is the least-squares line through its samples (time = fixed + work / rate), or
 * work over time when its samples are all one size; the overheads are their samples' mean. FALSE when a
 * benchmark has no usable sample, naming it. */
gboolean    fw_host_calibration_fit     (const FwCalSample *samples,
                                         guint              n_samples,
                                         guint              cores,
                                         FwCalFit          *out,
                                         GError           **error);
/* Puts the fit into a host profile (the integer rate keeps its ratio to the matrix rate); calibrated TRUE. */
void        fw_host_calibration_apply   (FwProfile         *profile,
                                         const FwCalFit    *fit);

/* ~/.cache/fusion-workbench/host-calibration.yaml */
char       *fw_host_calibration_path    (void);
/* The calibration file at path (a profile document with a `calibration` section) if it was written for
 * machine; NULL without error when it is absent or from another machine or calibration version; NULL with
 * an error naming the file when it cannot be read or is not a calibrated host profile. */
FwProfile  *fw_host_calibration_read    (const char        *path,
                                         const char        *machine,
                                         GError           **error);
gboolean    fw_host_calibration_write   (const char        *path,
                                         const FwProfile   *profile,
                                         const char        *machine,
                                         GError           **error);

/* Measures, fits and writes the cache; returns the calibrated host profile and, in before_out (may be
 * NULL), the one it replaces (as the host profile loaded before: probed, and calibrated if it was). FW_ERROR_USAGE under FW_HOST_PROFILE_NO_PROBE=1,
 * which promises fixed numbers. */
FwProfile  *fw_host_calibrate           (FwProfile        **before_out,
                                         FwCalProgressFunc  progress,
                                         gpointer           progress_data,
                                         GCancellable      *cancellable,
                                         GError           **error);
/* The same in a worker thread; progress is called there. */
void        fw_host_calibrate_async     (FwCalProgressFunc   progress,
                                         gpointer            progress_data,
                                         GCancellable       *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer            user_data);
FwProfile  *fw_host_calibrate_finish    (GAsyncResult       *result,
                                         FwProfile         **before_out,
                                         GError            **error);

/* The host profile as the probe alone gives it, calibration or not: what `--measure` compares with. */
FwProfile  *fw_host_profile_load_uncalibrated (GError     **error);

G_END_DECLS
