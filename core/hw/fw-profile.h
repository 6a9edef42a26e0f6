/* fw-profile.h: hardware profiles: what one fused kernel may use on a chip (Unified Buffer, queues,
 * inputs) and what moving and computing costs there (bandwidth, throughput, launch and sync overheads).
 *
 * Profiles are YAML (data/hw/NAME.yaml, shipped inside the library as resources; or a user's file). The
 * `host` profile describes this CPU and is measured by a short probe on first use, then cached. Nothing
 * here plans anything: core/plan reads these numbers. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FW_PROFILE_NPU,
  FW_PROFILE_CPU,
} FwProfileKind;

/* Classes of work whose throughput the host calibration measures apart (fw-host-calibrate.h): the vector
 * classes scale vector_flops_per_s for an op run alone (the planner's unfused side), the matrix-product
 * classes cube_flops_per_s (the interpreter's products, and the fused_gemm ones a fused kernel's). A product's
 * class is its size in FLOP (fw_op_gemm_class). The C
 * library's functions each have a class of their own: per element, powf took twice expf's time and tanhf
 * four times on this project's machine, which no one factor against the FLOP weights can say. */
typedef enum {
  FW_COST_CLASS_SIMPLE,          /* add, multiply, compare, select: a lane an operation */
  FW_COST_CLASS_DIVIDE,          /* Div, Sqrt, Reciprocal: the long-latency units */
  FW_COST_CLASS_EXP,             /* expf and what is made of it: Exp, Sigmoid, the Elus, Softmax */
  FW_COST_CLASS_ERF,             /* erff: Erf, the exact Gelu */
  FW_COST_CLASS_TANH,            /* tanhf: Tanh, the tanh Gelus, Mish */
  FW_COST_CLASS_POW,             /* powf: Pow */
  FW_COST_CLASS_TRANSCENDENTAL,  /* the other functions: Log, Softplus, Sin, Cos… */
  FW_COST_CLASS_REDUCE,          /* sums and norms along an axis */
  FW_COST_CLASS_GEMM_SMALL,      /* a product under 4 MFLOP */
  FW_COST_CLASS_GEMM_MEDIUM,     /* 4 to 256 MFLOP */
  FW_COST_CLASS_GEMM_LARGE,      /* above 256 MFLOP */
  /* The same sizes computed by a fused kernel's producer (the host's oneDNN primitives), which the host
     picks for speed and the reference interpreter does not use: on vit_b_16 a fused MatMul with its bias
     ran 1.2-1.35x faster than the interpreter's OpenBLAS product and its Add, where with OpenBLAS inside
     the kernel too it ran 0.94-1.0x. Priced for the root of a fused kernel only (fw-estimate.c). */
  FW_COST_CLASS_FUSED_GEMM_SMALL,
  FW_COST_CLASS_FUSED_GEMM_MEDIUM,
  FW_COST_CLASS_FUSED_GEMM_LARGE,
  FW_COST_N_CLASSES
} FwCostClass;

typedef struct _FwProfile FwProfile;

struct _FwProfile
{
  gatomicrefcount ref_count;
  char          *name;                 /* "ascend-910b" */
  char          *description;
  char          *source;               /* the file, "resource:…", or the host cache file */
  FwProfileKind  kind;
  guint          cube_cores;           /* AI cube cores (matrix units); CPU: physical cores */
  guint          vector_cores;         /* vector cores that run fused elementwise/reduce kernels */
  guint64        ub_bytes;             /* Unified Buffer per vector core; CPU: L2 per core */
  guint64        ub_reserve_bytes;     /* kept back by the runtime (CANN: 256 B) */
  guint64        l1_bytes;
  guint64        l0a_bytes;
  guint64        l0b_bytes;
  guint64        l0c_bytes;
  guint64        l2_bytes;             /* shared last-level cache */
  gdouble        hbm_bytes_per_s;      /* main memory bandwidth */
  gdouble        cube_flops_per_s;     /* matrix throughput, fp16 (CPU: fp32 FMA peak) */
  gdouble        vector_flops_per_s;   /* vector throughput, fp16 (CPU: fp32) */
  gdouble        cube_int8_ops_per_s;  /* matrix throughput on int8 operands (int32 sums), operations/s */
  gdouble        launch_overhead_s;    /* per kernel launch */
  gdouble        sync_overhead_s;      /* per kernel, pipeline start and drain */
  gdouble        budget_fraction;      /* share of (UB − reserve) one fused kernel may plan for */
  guint          max_vector_queues;    /* queues (TQue) one kernel may use */
  guint          max_kernel_inputs;    /* inputs one fused kernel may take */
  guint          max_fused_nodes;      /* original nodes in one fused kernel */
  guint          ub_align_bytes;       /* buffer alignment in UB (32 on Ascend) */
  /* The optional `calibration` section: each class's throughput against its unit's rate. All 1 (and
   * calibrated FALSE) unless the file has the section, which only a calibrated host profile writes. */
  gdouble        class_factor[FW_COST_N_CLASSES];
  gboolean       calibrated;
};

FwProfile          *fw_profile_ref              (FwProfile   *profile);
void                fw_profile_unref            (FwProfile   *profile);
/* A user's profile file; errors say file:line:column and the key. */
FwProfile          *fw_profile_load_file        (const char  *path,
                                                 GError     **error);
/* A profile held in memory; display_name is what errors call it. */
FwProfile          *fw_profile_load_data        (const char  *display_name,
                                                 const char  *data,
                                                 gsize        len,
                                                 GError     **error);
/* "ascend-910b", "ascend-310p" or "host" (probed on first use, cached under the user's cache folder;
 * FW_HOST_PROFILE_NO_PROBE=1 skips probe and cache and uses host.yaml's fixed estimates). */
FwProfile          *fw_profile_load_builtin     (const char  *name,
                                                 GError     **error);
/* A builtin name, else a file path. */
FwProfile          *fw_profile_lookup           (const char  *name_or_path,
                                                 GError     **error);
const char * const *fw_profile_builtin_names    (void);
/* The profile in the format of data/hw/README.md; loading it back gives the same numbers. */
char               *fw_profile_to_yaml          (const FwProfile *profile);
/* The profile's factor for a class of work; 1 when it has none (a hand-made profile may leave it 0). */
gdouble             fw_profile_class_factor     (const FwProfile *profile,
                                                 FwCostClass      cost_class);
/* "simple", "gemm_large": the class's key in the `calibration` section. */
const char         *fw_cost_class_key           (FwCostClass      cost_class);
/* Bytes one fused kernel may plan for: (ub − reserve) × budget_fraction. */
gdouble             fw_profile_budget_bytes     (const FwProfile *profile);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwProfile, fw_profile_unref)

G_END_DECLS
