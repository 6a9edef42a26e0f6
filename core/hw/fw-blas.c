/* fw-blas.c: OpenBLAS through dlopen, so that its core type is chosen before it loads (fw-blas.h). The
 * reference interpreter, the host calibration and the SuperKernels' sgemm fallback all come through here. */
#include "config.h"

#include <cblas.h>
#include <gmodule.h>

#include <glib/gi18n-lib.h>

#include "hw/fw-blas.h"
#include "fw-error.h"
#include "hw/fw-host-tuning.h"

typedef void (*SgemmFn) (enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                         float, const float *, blasint, const float *, blasint, float, float *, blasint);
typedef void (*DgemmFn) (enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                         double, const double *, blasint, const double *, blasint, double, double *, blasint);
typedef char *(*CoreNameFn) (void);

static SgemmFn sgemm_fn;
static DgemmFn dgemm_fn;
static CoreNameFn core_name_fn;
static char *load_error;
static char *library_path;

/* The OpenMP build first, where installed (libopenblas0-openmp): its products then run on the same OpenMP
 * threads as the SuperKernels and oneDNN, where the pthreads build keeps a second pool of as many threads
 * beside them, whose turns and libgomp's idle spinning take each other's cores. Then the build the
 * alternatives link names (libopenblas.so.0), and the bare development link, for a library built by hand. */
static const char *const library_names[] = {
#ifdef FW_OPENBLAS_OPENMP
  FW_OPENBLAS_OPENMP,
#endif
  "libopenblas.so.0", "libopenblas.so" };

static void
load (void)
{
  g_autoptr(GString) tried = g_string_new (NULL);
  const char *chosen = g_getenv ("FW_BLAS_LIBRARY");
  GModule *module = NULL;

  fw_host_tuning_apply ();

  for (guint i = 0; i < (chosen ? 1 : G_N_ELEMENTS (library_names)) && module == NULL; i++)
    {
      module = g_module_open (chosen ? chosen : library_names[i], G_MODULE_BIND_LOCAL);
      if (module == NULL)
        g_string_append_printf (tried, "%s%s", tried->len ? "; " : "", g_module_error ());
    }
  if (module == NULL)
    {
      load_error = g_strdup_printf (_("OpenBLAS could not be opened (%s)"), tried->str);
      return;
    }
  if (!g_module_symbol (module, "cblas_sgemm", (gpointer *) &sgemm_fn) ||
      !g_module_symbol (module, "cblas_dgemm", (gpointer *) &dgemm_fn))
    {
      load_error = g_strdup_printf (_("OpenBLAS (%s) has no cblas_sgemm or cblas_dgemm: %s"),
                                    g_module_name (module), g_module_error ());
      sgemm_fn = NULL;
      dgemm_fn = NULL;
      g_module_close (module);
      return;
    }
  if (!g_module_symbol (module, "openblas_get_corename", (gpointer *) &core_name_fn))
    core_name_fn = NULL;
  library_path = g_strdup (g_module_name (module));
  /* Kept open for the life of the process, as a linked library would be. */
  g_module_make_resident (module);
}

gboolean
fw_blas_ensure (GError **error)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      load ();
      g_once_init_leave (&once, 1);
    }
  if (sgemm_fn != NULL)
    return TRUE;
  g_set_error_literal (error, FW_ERROR, FW_ERROR_INTERNAL, load_error);
  return FALSE;
}

void
fw_blas_sgemm (gboolean trans_a, gboolean trans_b, gint m, gint n, gint k, float alpha, const float *a, gint lda,
               const float *b, gint ldb, float beta, float *c, gint ldc)
{
  g_return_if_fail (sgemm_fn != NULL);
  sgemm_fn (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha,
            a, lda, b, ldb, beta, c, ldc);
}

void
fw_blas_dgemm (gboolean trans_a, gboolean trans_b, gint m, gint n, gint k, double alpha, const double *a, gint lda,
               const double *b, gint ldb, double beta, double *c, gint ldc)
{
  g_return_if_fail (dgemm_fn != NULL);
  dgemm_fn (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha,
            a, lda, b, ldb, beta, c, ldc);
}

const char *
fw_blas_core_name (void)
{
  return sgemm_fn != NULL && core_name_fn != NULL ? core_name_fn () : NULL;
}

const char *
fw_blas_library (void)
{
  return sgemm_fn != NULL ? library_path : NULL;
}
