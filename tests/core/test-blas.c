/* OpenBLAS opened at first use (core/exec/fw-blas.c): it is not in the process before, the core type the
 * CPU should use is set before it loads (the reason it is opened and not linked: a linked OpenBLAS chooses
 * before main() runs), a user's own OPENBLAS_CORETYPE is kept, a library that cannot be opened is a clear
 * error, and the products are row-major with both transposes. Each case that depends on the environment
 * OpenBLAS loads under runs in a subprocess of its own. */
#include "config.h"

#include <string.h>

#include "hw/fw-blas.h"
#include "hw/fw-host-tuning.h"

static gboolean
blas_mapped (void)
{
  g_autofree char *maps = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  return strstr (maps, "libopenblas") != NULL;
}

static void
test_not_linked (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (blas_mapped ());
      g_assert_true (fw_blas_ensure (&error));
      g_assert_no_error (error);
      g_assert_true (blas_mapped ());
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_core_type (void)
{
  if (g_test_subprocess ())
    {
      const char *want = fw_host_tuning_blas_core ();
      g_autoptr(GError) error = NULL;

      g_assert_null (g_getenv ("OPENBLAS_CORETYPE"));
      g_assert_true (fw_blas_ensure (&error));
      g_assert_cmpstr (g_getenv ("OPENBLAS_CORETYPE"), ==, want);
      /* OpenBLAS names its kernels as the variable does ("Haswell", "SkylakeX"), in its own case. */
      g_assert_nonnull (fw_blas_core_name ());
      g_assert_cmpint (g_ascii_strcasecmp (fw_blas_core_name (), want), ==, 0);
      return;
    }
  if (fw_host_tuning_blas_core () == NULL)
    {
      g_test_skip ("no OpenBLAS core type is chosen on this CPU");
      return;
    }
  g_unsetenv ("OPENBLAS_CORETYPE");
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_user_core_type (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (fw_blas_ensure (&error));
      g_assert_cmpstr (g_getenv ("OPENBLAS_CORETYPE"), ==, "Prescott");
      g_assert_cmpint (g_ascii_strcasecmp (fw_blas_core_name (), "Prescott"), ==, 0);
      return;
    }
#if !defined(__x86_64__)
  g_test_skip ("Prescott is an x86 core type");
  return;
#endif
  g_setenv ("OPENBLAS_CORETYPE", "Prescott", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("OPENBLAS_CORETYPE");
  g_test_trap_assert_passed ();
}

static void
test_missing_library (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL, again = NULL;

      g_assert_false (fw_blas_ensure (&error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, "OpenBLAS"));
      g_assert_nonnull (strstr (error->message, "/nonexistent/libopenblas.so.0"));
      /* Every later caller gets the same answer, not a crash in a NULL product. */
      g_assert_false (fw_blas_ensure (&again));
      g_assert_cmpstr (again->message, ==, error->message);
      return;
    }
  g_setenv ("FW_BLAS_LIBRARY", "/nonexistent/libopenblas.so.0", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("FW_BLAS_LIBRARY");
  g_test_trap_assert_passed ();
}

/* C = alpha · op(A) · op(B) + beta · C against the sums written out, for every pair of transposes. */
static void
test_products (void)
{
  enum { M = 3, N = 4, K = 5 };
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_blas_ensure (&error));
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      {
        float a[M * K], b[K * N], c[M * N];
        double ad[M * K], bd[K * N], cd[M * N];

        for (int i = 0; i < M * K; i++)
          ad[i] = a[i] = (float) ((i * 7) % 11) - 5.0f;
        for (int i = 0; i < K * N; i++)
          bd[i] = b[i] = (float) ((i * 5) % 13) - 6.0f;
        for (int i = 0; i < M * N; i++)
          cd[i] = c[i] = (float) i;
        fw_blas_sgemm (ta, tb, M, N, K, 2.0f, a, ta ? M : K, b, tb ? K : N, 0.5f, c, N);
        fw_blas_dgemm (ta, tb, M, N, K, 2.0, ad, ta ? M : K, bd, tb ? K : N, 0.5, cd, N);
        for (int i = 0; i < M; i++)
          for (int j = 0; j < N; j++)
            {
              double want = 0.5 * (i * N + j);

              for (int k = 0; k < K; k++)
                want += 2.0 * (ta ? a[k * M + i] : a[i * K + k]) * (tb ? b[j * K + k] : b[k * N + j]);
              g_assert_cmpfloat_with_epsilon (c[i * N + j], want, 1e-4);
              g_assert_cmpfloat_with_epsilon (cd[i * N + j], want, 1e-12);
            }
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/blas/not-linked", test_not_linked);
  g_test_add_func ("/core/exec/blas/core-type", test_core_type);
  g_test_add_func ("/core/exec/blas/user-core-type", test_user_core_type);
  g_test_add_func ("/core/exec/blas/missing-library", test_missing_library);
  g_test_add_func ("/core/exec/blas/products", test_products);
  return g_test_run ();
}
