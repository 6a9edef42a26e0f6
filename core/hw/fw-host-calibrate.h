/* fw-host-calibrate.h: fitting the `host` profile's numbers to this machine.
 *
 * The first-use probe (fw-host-probe.c) measures one bandwidth and one FLOP rate. A calibration times a
 * short set of microbenchmarks (fw-host-bench.h): the triad, the interpreter's elementwise loops per class
 * (simple, divide, each C library function, reduce), float products of three size classes, and OpenMP's
 * fork, join and barrier, in rounds until each timing's two fastest rounds agree; fits the profile's
 * bandwidth, vector and matrix rates, launch and sync overheads and the per-class factors (fw-profile.h) to
 * them, and caches the result beside the probe's. Loading `host` then applies it. Only the host profile is
 * ever calibrated: the Ascend profiles keep their sourced numbers. */
#pragma once

#include <gio/gio.h>

#include "hw/fw-profile.h"

G_BEGIN_DECLS

typedef enum {
  FW_CAL_STREAM,          /* work: bytes moved, all threads */
  FW_CAL_SIMPLE,          /* work: the cost model's FLOPs, one core */
  FW_CAL_DIVIDE,
  FW_CAL_EXP,
  FW_CAL_ERF,
  FW_CAL_TANH,
  FW_CAL_POW,
  FW_CAL_TRANSCENDENTAL,  /* logf, for the functions without a class of their own */
  FW_CAL_REDUCE,
  FW_CAL_GEMM_SMALL,      /* work: FLOPs of the product, the BLAS's threads */
  FW_CAL_GEMM_MEDIUM,
  FW_CAL_GEMM_LARGE,
  FW_CAL_FUSED_GEMM_SMALL,  /* work: FLOPs of the product through the fused kernels' producer (oneDNN) */
  FW_CAL_FUSED_GEMM_MEDIUM,
  FW_CAL_FUSED_GEMM_LARGE,
  FW_CAL_FORK_JOIN,       /* work 0: seconds of one empty parallel region */
  FW_CAL_BARRIER,         /* work 0: seconds of one barrier */
  FW_CAL_N_BENCHES
} FwCalBench;

typedef struct
{
  FwCalBench bench;
  guint      shape;     /* which of the benchmark's sizes or shapes */
  guint      round;
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

/* How far the last round still moves the fit. A calibration repeats whole rounds until adding the last
 * moves no fitted number (a rate, an overhead, a class's factor) by more than FW_CAL_AGREEMENT: on a
 * shared machine a burst of other work slows one round's timing and not the next's (calibrations an hour
 * apart had fitted the transcendental factor 3x apart, the large products' rate at 17 and 127 GFLOP/s).
 * Medians over the rounds, not the fastest round, because --measure times the kernels it compares the fit
 * with by their medians too. Past FW_CAL_MAX_ROUNDS the fit stands as it is; a last round that still
 * moved a number by more than FW_CAL_BUSY is worth a warning. On this project's shared 2-core machine a
 * quiet calibration's last round moved its numbers by 5 to 22 % (the machine's speed itself changes over
 * minutes); under a load on one core, by up to 24 %. */
#define FW_CAL_AGREEMENT  0.05
#define FW_CAL_BUSY       0.25
/* A timing whose median round took more than this many times its fastest: other work held the cores for
 * most rounds, and medians that agree with each other say nothing then (a calibration beside the test
 * suite's two processes fitted the small products at a hundredth of the large ones' rate). */
#define FW_CAL_CONTENDED  2.0
#define FW_CAL_MIN_ROUNDS 3
#define FW_CAL_MAX_ROUNDS 8

typedef struct
{
  guint       rounds;
  gboolean    settled;   /* the last round moved no fitted number by more than FW_CAL_AGREEMENT, and no
                            timing's contention is over FW_CAL_CONTENDED */
  const char *worst;     /* the number it moved most, by its key in the profile (data/hw/README.md): "hbm",
                            "vector_fp32", "pow"…; NULL under 2 rounds */
  gdouble     spread;    /* by that much, as a fraction */
  gdouble     contention; /* the largest median round / fastest round of a timing (1: all alike) */
  FwCalBench  contended;  /* whose */
} FwCalAgreement;

/* Called from the thread that calibrates, before each benchmark: fraction done and the benchmark's name. */
typedef void (*FwCalProgressFunc) (gdouble     fraction,
                                   const char *bench,
                                   gpointer    user_data);

const char *fw_cal_bench_name           (FwCalBench         bench);
/* Times every benchmark in rounds (FW_CAL_MIN_ROUNDS, then more until they agree, at most
 * FW_CAL_MAX_ROUNDS; a few seconds on a quiet machine): FwCalSample, every round's.
 * n_threads: the parallel regions' and the triad's threads (the loops run on one core, the products on the
 * BLAS's threads). agreement_out (may be NULL): how the rounds agreed. */
GArray     *fw_host_calibration_measure (guint              n_threads,
                                         FwCalProgressFunc  progress,
                                         gpointer           progress_data,
                                         FwCalAgreement    *agreement_out,
                                         GCancellable      *cancellable,
                                         GError           **error);
/* How the rounds in samples (every round's) agree: the fit of them all against the fit without the last
 * round. Not settled under two rounds. */
void        fw_host_calibration_agreement (const FwCalSample *samples,
                                           guint              n_samples,
                                           FwCalAgreement    *out);
/* Fits samples of any number of rounds. The rates (bandwidth, simple loop, large products) are work over
 * time of each timing's median over the rounds (a fixed cost per call is part of what a node pays, and a
 * line through two sizes close together is mostly noise); the overheads the mean of their medians; a
 * class's factor the median over the rounds of its rate against its unit's in the same round. FALSE when a
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
 * NULL), the one it replaces (as the host profile loaded before: probed, and calibrated if it was), and in
 * agreement_out (may be NULL) how its rounds agreed. FW_ERROR_USAGE under FW_HOST_PROFILE_NO_PROBE=1,
 * which promises fixed numbers. */
FwProfile  *fw_host_calibrate           (FwProfile        **before_out,
                                         FwCalAgreement    *agreement_out,
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
                                         FwCalAgreement     *agreement_out,
                                         GError            **error);

/* The host profile as the probe alone gives it, calibration or not: what `--measure` compares with. */
FwProfile  *fw_host_profile_load_uncalibrated (GError     **error);

G_END_DECLS
