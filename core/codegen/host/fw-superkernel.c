/* fw-superkernel.c: a host SuperKernel's life: generate, compile (fw-host-toolchain.c), load with GModule,
 * run on FwArrays. */
#include "config.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif
#include <string.h>

#include <glib/gi18n-lib.h>

#include "hw/fw-blas.h"
#include "fw-error.h"
#include "fw-host-dnnl.h"
#include "fw-superkernel-private.h"

/* A run's pointer tables of up to this many entries live on its stack: a run allocates none of them. */
#define STACK_SLOTS 32

/* The generated code calls sgemm through this, so its object links no BLAS and both sides agree on the
 * row-major convention whatever cblas.h's enums are. */
static void
runtime_sgemm (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
               int ldb, float beta, float *c, int ldc)
{
  fw_blas_sgemm (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* What the generated half-precision row converters may use on this CPU. */
static int
cpu_features (void)
{
  int f = 0;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;

  __builtin_cpu_init ();
  /* F16C by CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports does not know "f16c"; "avx" also
   * checks that the OS saves the YMM state. */
  if (__builtin_cpu_supports ("avx") && __get_cpuid (1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0)
    f |= FW_SK_CPU_F16C;
  if (__builtin_cpu_supports ("avx512f"))
    f |= FW_SK_CPU_AVX512;
  if (__builtin_cpu_supports ("avx2"))
    f |= FW_SK_CPU_AVX2;
  /* AVX-512 VNNI by CPUID leaf 7 (ECX bit 11), as for F16C: not every compiler's __builtin_cpu_supports
   * knows it. */
  if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw") &&
      __get_cpuid_count (7, 0, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 11)) != 0)
    f |= FW_SK_CPU_VNNI;
#endif
  return f;
}

/* The table the generated code receives. FW_SK_PORTABLE set (tests, benches): the portable conversions
 * only, as on a CPU without F16C; FW_SK_NO_VNNI: as on a CPU without AVX-512 VNNI. */
static FwSkRuntime
runtime_table (void)
{
  static int features = 0;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      features = cpu_features ();
      g_once_init_leave (&once, 1);
    }
  /* FW_SK_NO_VNNI (tests): the integer kernels' AVX2 path on a CPU that has VNNI. */
  return (FwSkRuntime) { FW_SK_ABI_VERSION,
                         g_getenv ("FW_SK_PORTABLE") != NULL ? 0
                         : g_getenv ("FW_SK_NO_VNNI") != NULL ? features & ~FW_SK_CPU_VNNI : features,
                         runtime_sgemm, fw_dnnl_prim_run, NULL };
}

int
fw_superkernel_abi_version (void)
{
  return FW_SK_ABI_VERSION;
}

FwSuperKernel *
fw_superkernel_generate (FwPlan *plan, const FwCandidate *candidate, GError **error)
{
  return fw_superkernel_generate_unit (plan, candidate, NULL, error);
}

FwSuperKernel *
fw_superkernel_generate_unit (FwPlan *plan, const FwCandidate *candidate, const char *unit_name, GError **error)
{
  g_autoptr(FwSuperKernel) kernel = g_new0 (FwSuperKernel, 1);

  g_return_val_if_fail (plan != NULL && candidate != NULL, NULL);
  kernel->unit_name = g_strdup (unit_name);
  kernel->plan = plan;
  kernel->candidate = candidate;
  kernel->inputs = g_ptr_array_new ();
  kernel->outputs = g_ptr_array_new ();
  if (candidate->nodes == NULL || candidate->nodes->len == 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("host SuperKernel: the candidate has no nodes"));
      return NULL;
    }
  if (!fw_host_codegen (kernel, error))
    return NULL;
  {
    g_autofree char *name = g_strdup_printf ("fw_sk%03u", candidate->index);
    kernel->kernel_source = fw_kernel_source_new ("host", name);
    fw_kernel_source_take_file (kernel->kernel_source, g_strdup ("kernel.c"), (char *) kernel->source);
    kernel->source = fw_kernel_source_get_main (kernel->kernel_source);
    for (guint i = 0; i < kernel->inputs->len; i++)
      fw_kernel_source_add_input (kernel->kernel_source, g_ptr_array_index (kernel->inputs, i));
    for (guint i = 0; i < kernel->outputs->len; i++)
      fw_kernel_source_add_output (kernel->kernel_source, g_ptr_array_index (kernel->outputs, i));
  }
  return g_steal_pointer (&kernel);
}

void
fw_superkernel_free (FwSuperKernel *kernel)
{
  if (kernel == NULL)
    return;
  if (kernel->module)
    g_module_close (kernel->module);
  if (kernel->kernel_source != NULL)
    fw_kernel_source_free (kernel->kernel_source);
  else
    g_free ((char *) kernel->source);
  g_ptr_array_unref (kernel->inputs);
  g_ptr_array_unref (kernel->outputs);
  g_free (kernel->object_path);
  g_free (kernel->source_hash);
  g_free (kernel->object_hash);
  g_free (kernel->unit_name);
  g_free (kernel->unit);
  g_free (kernel->producer_fallback);
  fw_dnnl_prim_free (kernel->dnnl);
  g_free (kernel->producer_table);
  g_free (kernel->packed);
  g_aligned_free (kernel->int8_pack);
  g_free (kernel);
}

const FwCandidate *
fw_superkernel_get_candidate (FwSuperKernel *kernel)
{
  return kernel->candidate;
}

gint64
fw_superkernel_get_scratch_elements (FwSuperKernel *kernel)
{
  return kernel->scratch_elements;
}

const FwKernelSource *
fw_superkernel_get_kernel_source (FwSuperKernel *kernel)
{
  return kernel->kernel_source;
}

const char *
fw_superkernel_get_object_path (FwSuperKernel *kernel)
{
  return kernel->object_path;
}

const char *
fw_superkernel_get_source_hash (FwSuperKernel *kernel)
{
  return kernel->source_hash;
}

const char *
fw_superkernel_get_object_hash (FwSuperKernel *kernel)
{
  return kernel->object_hash;
}

const FwSuperKernelProducer *
fw_superkernel_get_producer (FwSuperKernel *kernel)
{
  return &kernel->producer;
}

gboolean
fw_superkernel_get_product_order (FwSuperKernel *kernel, guint64 *k, gdouble *alpha, FwValue **a, FwValue **b)
{
  if (kernel == NULL || kernel->product_k == 0)
    return FALSE;
  *k = kernel->product_k;
  *alpha = kernel->product_alpha;
  *a = kernel->product_a;
  *b = kernel->product_b;
  return TRUE;
}

gboolean
fw_superkernel_channels_last (FwSuperKernel *kernel, guint32 *inputs)
{
  *inputs = 0;
  if (kernel == NULL || kernel->absorbed == NULL || kernel->dnnl == NULL || !fw_dnnl_prim_channels_last (kernel->dnnl) ||
      kernel->outputs->len != 1)
    return FALSE;
  for (guint j = 0; j < kernel->inputs->len && j < 32; j++)
    {
      FwValue *v = g_ptr_array_index (kernel->inputs, j);
      if ((v == kernel->product_a && fw_dnnl_prim_src_channels_last (kernel->dnnl)) || v == kernel->residual)
        *inputs |= 1u << j;
    }
  return TRUE;
}

guint32
fw_superkernel_inplace_inputs (FwSuperKernel *kernel)
{
  /* Only where the primitive alone reads the residual (its sum post-op starts from dst, so dst may be the
     residual's own storage) and reads it nowhere else: a residual that is also the conv's source would be
     written over while the conv reads it. */
  if (kernel == NULL || kernel->absorbed == NULL || kernel->residual == NULL || kernel->residual == kernel->product_a ||
      kernel->outputs->len != 1)
    return 0;
  for (guint j = 0; j < kernel->inputs->len && j < 32; j++)
    if (g_ptr_array_index (kernel->inputs, j) == kernel->residual)
      return 1u << j;
  return 0;
}

FwSuperKernelCache
fw_superkernel_get_cache_status (FwSuperKernel *kernel)
{
  return kernel->cache;
}

/* Kernels link the compiler's OpenMP runtime. Without this, a process that has not loaded it otherwise loads
 * it with the first kernel and unloads it with the last: every check or export of the window would start the
 * runtime (and its thread pool) afresh, and what its initialiser allocated is lost on each unload. Kept
 * resident once loaded; when the kernels' runtime has another name (clang's libomp) this pins nothing. */
static void
pin_openmp_runtime (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      GModule *gomp = g_module_open ("libgomp.so.1", G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);

      if (gomp != NULL)
        g_module_make_resident (gomp);
      g_once_init_leave (&once, 1);
    }
}

typedef void (*FwSkPack) (const void *const *inputs, void *dst, int n_threads);

/* An integer kernel's constant weights packed by its own fw_sk_pack, once (fw-host-int8.c). */
static gboolean
pack_int8 (FwSuperKernel *kernel, GModule *module, GError **error)
{
  gpointer pack = NULL;
  g_autofree gconstpointer *ins = g_new0 (gconstpointer, kernel->inputs->len + 1);
  const FwTensor *w = fw_value_get_constant (g_ptr_array_index (kernel->inputs, kernel->int8_pack_input));

  g_clear_pointer (&kernel->int8_pack, g_aligned_free);
  if (kernel->int8_pack_bytes == 0)
    return TRUE;
  if (!g_module_symbol (module, "fw_sk_pack", &pack) || pack == NULL || w == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("the SuperKernel “%s” lacks its entry point or was built "
                                                            "for another ABI"), kernel->object_path);
      return FALSE;
    }
  ins[kernel->int8_pack_input] = fw_tensor_get_data (w, NULL);
  kernel->int8_pack = g_aligned_alloc0 (1, (kernel->int8_pack_bytes + 63) / 64 * 64, 64);
  /* On the calling thread alone (a compile pool's: see fw_superkernel_compile), once per kernel. */
  ((FwSkPack) pack) ((const void *const *) ins, kernel->int8_pack, 1);
  return TRUE;
}

gboolean
fw_superkernel_compile (FwSuperKernel *kernel, FwHostToolchain *toolchain, GError **error)
{
  gpointer entry = NULL, abi = NULL;
  GModule *module;

  g_return_val_if_fail (kernel != NULL && toolchain != NULL, FALSE);
  if (kernel->module != NULL)
    {
      g_module_close (kernel->module);
      kernel->module = NULL;
      kernel->entry = NULL;
    }
  if (!fw_host_toolchain_build (toolchain, kernel, error))
    return FALSE;
  pin_openmp_runtime ();
  module = g_module_open (kernel->object_path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("cannot load the SuperKernel “%s”: %s"),
                   kernel->object_path, g_module_error ());
      return FALSE;
    }
  if (!g_module_symbol (module, "fw_sk_abi_version", &abi) || abi == NULL ||
      *(const int *) abi != FW_SK_ABI_VERSION || !g_module_symbol (module, "fw_sk_entry", &entry) || entry == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("the SuperKernel “%s” lacks its entry point or was built for another ABI"), kernel->object_path);
      g_module_close (module);
      return FALSE;
    }
  if (!pack_int8 (kernel, module, error))
    {
      g_module_close (module);
      return FALSE;
    }
  kernel->module = module;
  kernel->entry = (FwSkEntry) entry;
  /* The primitive and its constant weights' reorder are made by the kernel's first run, on the thread that
     runs it, not here: kernels compile on a pool's threads, and an OpenMP team started on one stays for the
     thread's life. With more libgomp threads than cores, libgomp cuts every wait's spinning to 100 rounds,
     so the runs' worker slept and was woken at each of their hundreds of parallel regions
     (mobilenet_v3_small: 12.8 ms a run against 3.6 ms). */
  return TRUE;
}

gboolean
fw_superkernel_run (FwSuperKernel *kernel, FwArray *const *inputs, FwArray **outputs, guint n_threads,
                    GError **error)
{
  return fw_superkernel_run_arena (kernel, inputs, outputs, NULL, n_threads, error);
}

static gboolean run_with (FwSuperKernel *kernel, FwArray *const *inputs, FwArray **outputs, gpointer arena,
                          int layout, guint n_threads, GError **error);

gboolean
fw_superkernel_run_arena (FwSuperKernel *kernel, FwArray *const *inputs, FwArray **outputs, gpointer arena,
                          guint n_threads, GError **error)
{
  return run_with (kernel, inputs, outputs, arena, 0, n_threads, error);
}

gboolean
fw_superkernel_run_layout (FwSuperKernel *kernel, FwArray *const *inputs, FwArray **outputs, gboolean out_nhwc,
                           guint n_threads, GError **error)
{
  FwArray *plain_stack[STACK_SLOTS] = { NULL };
  g_autofree FwArray **plain_heap = kernel->inputs->len + 1 > STACK_SLOTS ? g_new0 (FwArray *, kernel->inputs->len + 1)
                                                                          : NULL;
  FwArray **plain = plain_heap != NULL ? plain_heap : plain_stack;
  guint32 allowed = 0;
  gboolean cl = fw_superkernel_channels_last (kernel, &allowed), ok = TRUE;
  int layout = 0;

  if (out_nhwc && !cl)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("the SuperKernel cannot write channels-last"));
      return FALSE;
    }
  /* A channels-last input the primitive cannot take is made plain here: the layout is the executor's
     choice, never a cause of a wrong result. */
  for (guint j = 0; j < kernel->inputs->len && ok; j++)
    {
      FwValue *v = g_ptr_array_index (kernel->inputs, j);

      if (inputs[j] != NULL && inputs[j]->nhwc &&
          (j >= 32 || !(allowed & (1u << j)) || inputs[j]->block != fw_dnnl_prim_block (kernel->dnnl)))
        ok = (plain[j] = fw_array_to_plain (inputs[j], error)) != NULL;
      else
        {
          plain[j] = inputs[j] != NULL ? fw_array_ref (inputs[j]) : NULL;
          /* One value may be both (a residual block's shortcut around a single conv). */
          if (inputs[j] != NULL && inputs[j]->nhwc)
            layout |= (v == kernel->product_a ? FW_DNNL_SRC_NHWC : 0) | (v == kernel->residual ? FW_DNNL_RESIDUAL_NHWC : 0);
        }
    }
  if (out_nhwc)
    layout |= FW_DNNL_DST_NHWC;
  /* Storage handed over must lie as the result will. */
  if (outputs[0] != NULL && (outputs[0]->nhwc != out_nhwc || (out_nhwc && outputs[0]->block != fw_dnnl_prim_block (kernel->dnnl))))
    g_clear_pointer (&outputs[0], fw_array_unref);
  ok = ok && run_with (kernel, plain, outputs, NULL, layout, n_threads, error);
  if (ok && out_nhwc)
    {
      outputs[0]->nhwc = TRUE;
      outputs[0]->block = fw_dnnl_prim_block (kernel->dnnl);
    }
  for (guint j = 0; j < kernel->inputs->len; j++)
    g_clear_pointer (&plain[j], fw_array_unref);
  return ok;
}

static gboolean
same_shape (const FwArray *a, const FwValue *v)
{
  gboolean same = a != NULL && a->dtype == v->dtype && (gint) a->rank == v->rank;

  for (gint d = 0; same && d < v->rank; d++)
    same = a->dims[d] == v->dims[d].value;
  return same;
}

static gboolean
run_with (FwSuperKernel *kernel, FwArray *const *inputs, FwArray **outputs, gpointer arena, int layout,
          guint n_threads, GError **error)
{
  guint n_in = kernel->inputs->len, n_out = kernel->outputs->len;
  gconstpointer ins_stack[STACK_SLOTS];
  gpointer outs_stack[STACK_SLOTS];
  g_autofree gconstpointer *ins_heap = n_in + 1 > STACK_SLOTS ? g_new0 (gconstpointer, n_in + 1) : NULL;
  g_autofree gpointer *outs_heap = n_out + 1 > STACK_SLOTS ? g_new0 (gpointer, n_out + 1) : NULL;
  gconstpointer *ins = ins_heap != NULL ? ins_heap : ins_stack;
  gpointer *outs = outs_heap != NULL ? outs_heap : outs_stack;
  FwSkRuntime rt = runtime_table ();

  if (kernel->entry == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("the SuperKernel has not been compiled"));
      return FALSE;
    }
  if (!fw_blas_ensure (error))
    return FALSE;
  for (guint i = 0; i < n_in; i++)
    {
      FwValue *v = g_ptr_array_index (kernel->inputs, i);
      const FwArray *a = inputs[i];

      if (!same_shape (a, v))
        {
          g_autofree char *want = fw_value_format_shape (v);
          g_autofree char *got = a ? fw_array_format_shape (a) : g_strdup ("none");
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("SuperKernel input %u: expected %s %s, got %s %s"), i, fw_dtype_name (v->dtype), want,
                       a ? fw_dtype_name (a->dtype) : "", got);
          return FALSE;
        }
    }
  ins[n_in] = kernel->packed;
  outs[n_out] = arena;
  for (guint i = 0; i < n_in; i++)
    ins[i] = inputs[i]->data;
  for (guint i = 0; i < n_out; i++)
    {
      FwValue *v = g_ptr_array_index (kernel->outputs, i);
      gint64 dims[FW_MAX_RANK];

      for (gint d = 0; d < v->rank; d++)
        dims[d] = v->dims[d].value;
      /* An output given on entry is storage the caller handed over (fw_superkernel_inplace_inputs). */
      if (outputs[i] != NULL && !same_shape (outputs[i], v))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("SuperKernel output %u: the storage given has another shape"), i);
          g_clear_pointer (&outputs[i], fw_array_unref);
        }
      else if (outputs[i] == NULL)
        outputs[i] = fw_array_new (v->dtype, v->rank, dims, error);
      if (outputs[i] == NULL)
        {
          for (guint k = 0; k < i; k++)
            g_clear_pointer (&outputs[k], fw_array_unref);
          return FALSE;
        }
      outs[i] = outputs[i]->data;
    }
  if (n_threads == 0)
    n_threads = g_get_num_processors ();
  rt.producer = kernel->producer_table != NULL ? (gpointer) kernel->producer_table
                : kernel->dnnl != NULL          ? (gpointer) kernel->dnnl
                                                : kernel->int8_pack;
  rt.layout = layout;
  if (kernel->entry (&rt, (const void *const *) ins, (void *const *) outs, (int) MIN (n_threads, 1024)) != 0)
    {
      for (guint k = 0; k < n_out; k++)
        g_clear_pointer (&outputs[k], fw_array_unref);
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("the SuperKernel ran out of memory for its buffers"));
      return FALSE;
    }
  return TRUE;
}
