/* fw-superkernel.h: host SuperKernels: one accepted candidate → C99 specialised to its shapes and dtypes,
 * compiled by the system C compiler into a shared object, cached, loaded with GModule and run on FwArrays.
 *
 * Generation reads only the graph's structure, shapes, dtypes, attributes and small constants; names from
 * the model reach the source only inside escaped comments, so a hostile model cannot change what is
 * compiled. The cache ($XDG_CACHE_HOME/fusion-workbench/kernels, mode 0700) is keyed by a hash of source,
 * flags and compiler version; a cached object whose bytes do not match its recorded hash is refused. */
#pragma once

#include <glib.h>

#include "codegen/fw-kernel-source.h"
#include "exec/fw-array.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef struct _FwHostToolchain FwHostToolchain;
typedef struct _FwSuperKernel   FwSuperKernel;

/* The C compiler ($CC, else cc, gcc, clang on PATH), its version line and the flags used. cache_dir NULL:
 * the default. FW_ERROR_UNSUPPORTED when no compiler is found. */
FwHostToolchain *fw_host_toolchain_new      (const char        *cache_dir,
                                             GError           **error);
void             fw_host_toolchain_free     (FwHostToolchain   *toolchain);
const char      *fw_host_toolchain_get_compiler (FwHostToolchain *toolchain);  /* path */
const char      *fw_host_toolchain_get_version  (FwHostToolchain *toolchain);  /* first line of --version */
const char      *fw_host_toolchain_get_flags    (FwHostToolchain *toolchain);  /* as passed, one string */
const char      *fw_host_toolchain_get_cache_dir(FwHostToolchain *toolchain);
/* The version of the generated entry's runtime table (each object exports it as fw_sk_abi_version). */
int              fw_superkernel_abi_version (void);
/* The flags every host kernel is compiled with, one string (what a packaged Makefile passes). */
const char      *fw_host_toolchain_default_flags (void);
/* Compiles C++ source with the C++ compiler ($CXX, else c++, g++, clang++) and flags (before -o; extra_args
 * after the source: objects to link, libraries) into the kernel cache, or finds it there; salt is keyed on
 * too (the contents of headers the source includes). *object_path: the result, named with object_ext. */
gboolean         fw_host_toolchain_build_cxx (FwHostToolchain   *toolchain,
                                              const char        *source,
                                              const char *const *flags,
                                              const char *const *extra_args,
                                              const char        *salt,
                                              const char        *object_ext,
                                              char             **object_path,
                                              GError           **error);

/* Generates the source for the candidate (no compiler needed). FW_ERROR_UNSUPPORTED names what the host
 * target cannot generate (an op, a dtype, a dynamic shape). */
FwSuperKernel   *fw_superkernel_generate    (FwPlan            *plan,
                                             const FwCandidate *candidate,
                                             GError           **error);
void             fw_superkernel_free        (FwSuperKernel     *kernel);
const FwCandidate *fw_superkernel_get_candidate (FwSuperKernel *kernel);
/* The generated C (kernel.c) and the kernel's inputs and outputs in argument order. */
const FwKernelSource *fw_superkernel_get_kernel_source (FwSuperKernel *kernel);
/* The row scratch each thread allocates, in elements (one 8-byte slot each): the values the plan carries
 * between passes over a row times the row (fw_kernel_spec_get_n_carried × sweep row elements). */
gint64           fw_superkernel_get_scratch_elements (FwSuperKernel *kernel);

gboolean         fw_superkernel_compile     (FwSuperKernel     *kernel,
                                             FwHostToolchain   *toolchain,
                                             GError           **error);
/* After compile: the shared object, and the hex SHA-256 of the source and of the object. */
const char      *fw_superkernel_get_object_path (FwSuperKernel *kernel);
const char      *fw_superkernel_get_source_hash (FwSuperKernel *kernel);
const char      *fw_superkernel_get_object_hash (FwSuperKernel *kernel);

typedef enum {
  FW_SUPERKERNEL_CACHE_NONE,      /* not compiled yet */
  FW_SUPERKERNEL_CACHE_MISS,      /* compiled now */
  FW_SUPERKERNEL_CACHE_HIT,       /* found in the cache, its hash checked */
  FW_SUPERKERNEL_CACHE_REPLACED,  /* the cached object did not match its recorded hash: compiled again */
} FwSuperKernelCache;

/* Which library computes the kernel's compute root (MatMul, Gemm, Conv), as decided when it was generated. */
typedef struct
{
  const char *backend;         /* "onednn", "openblas" or "direct"; NULL when the kernel has no compute root */
  const char *library;         /* "oneDNN 2.6.3" when oneDNN backs it, else NULL */
  const char *isa;             /* the instruction set oneDNN runs on (dnnl_get_effective_cpu_isa), or NULL */
  const char *implementation;  /* the implementation oneDNN chose (dnnl_verbose's name), or NULL */
  const char *fallback;        /* why oneDNN does not back a compute root (missing, refused), or NULL */
} FwSuperKernelProducer;

const FwSuperKernelProducer *fw_superkernel_get_producer (FwSuperKernel *kernel);
/* When the root's products are summed in another order than the reference interpreter's (a oneDNN
 * primitive): the reduction length, |alpha| and the two operands; FALSE otherwise. */
gboolean     fw_superkernel_get_product_order (FwSuperKernel *kernel,
                                               guint64       *k,
                                               gdouble       *alpha,
                                               FwValue      **a,
                                               FwValue      **b);

/* Whether the kernel reads and writes channels-last arrays (a Conv whose whole group a oneDNN primitive
 * computes in NHWC): then *inputs has bit j set for each input that may come channels-last (the conv's
 * source and its residual), and fw_superkernel_run_layout may write the output so. */
gboolean         fw_superkernel_channels_last (FwSuperKernel *kernel,
                                               guint32       *inputs);

/* Bit j: input j's storage may be given as the output (outputs[0] set on entry to a run): a residual that
 * the primitive's sum post-op adds, read by nothing else in the kernel. 0 for every other kernel. */
guint32          fw_superkernel_inplace_inputs (FwSuperKernel *kernel);

/* How the last compile found the cache. */
FwSuperKernelCache fw_superkernel_get_cache_status (FwSuperKernel *kernel);

/* Runs the compiled kernel: inputs in get_input order; outputs receives new arrays in get_output order (or
 * writes into one given on entry, where fw_superkernel_inplace_inputs allowed it).
 * Input dtypes and dims must equal those the kernel was generated for (FW_ERROR_INVALID otherwise). */
gboolean         fw_superkernel_run         (FwSuperKernel     *kernel,
                                             FwArray *const    *inputs,
                                             FwArray          **outputs,
                                             guint              n_threads,
                                             GError           **error);

/* fw_superkernel_run taking inputs that lie channels-last (FwArray.nhwc) where fw_superkernel_channels_last
 * allows it, and writing the one output channels-last when out_nhwc (which it then allows). */
gboolean         fw_superkernel_run_layout  (FwSuperKernel     *kernel,
                                             FwArray *const    *inputs,
                                             FwArray          **outputs,
                                             gboolean           out_nhwc,
                                             guint              n_threads,
                                             GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwHostToolchain, fw_host_toolchain_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwSuperKernel, fw_superkernel_free)

G_END_DECLS
