/* fw-kernel-registry.c: joins the kernel families' tables into one lookup, and the helpers every kernel
 * shares (errors naming the node, broadcasting, axes). */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <string.h>

#include "fw-error.h"
#include "fw-kernel.h"
#include "ops/fw-custom-ops.h"

typedef const FwKernelEntry *(*TableFunc) (guint *n_entries);

static const TableFunc families[] = { fw_kernels_elementwise, fw_kernels_nn, fw_kernels_tensor };

static GHashTable *
kernel_table (void)
{
  static GHashTable *table;

  if (g_once_init_enter (&table))
    {
      GHashTable *t = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint f = 0; f < G_N_ELEMENTS (families); f++)
        {
          guint n = 0;
          const FwKernelEntry *entries = families[f] (&n);

          for (guint i = 0; i < n; i++)
            g_hash_table_insert (t, (gpointer) entries[i].op_type, (gpointer) &entries[i]);
        }
      g_once_init_leave (&table, t);
    }
  return table;
}

FwKernelFunc
fw_kernel_lookup (const char *domain, const char *op_type)
{
  const FwKernelEntry *entry;

  if (domain != NULL && domain[0] != '\0' && strcmp (domain, "ai.onnx") != 0)
    return fw_kernel_custom (fw_custom_ops_lookup (domain, op_type));
  entry = g_hash_table_lookup (kernel_table (), op_type);
  return entry ? entry->run : NULL;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
fw_kernel_list_ops (void)
{
  GPtrArray *ops = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, kernel_table ());
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (ops, key);
  g_ptr_array_sort (ops, compare_strings);
  return ops;
}

gboolean
fw_kernel_fail (GError **error, const FwNode *node, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;
  g_autofree char *name = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  name = g_utf8_make_valid (node->name ? node->name : "", -1);
  g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("node “%s” (%s): %s"), name, node->op_type, message);
  return FALSE;
}

gboolean
fw_kernel_broadcast_dims (const FwNode *node, guint rank_a, const gint64 *dims_a, guint rank_b,
                          const gint64 *dims_b, guint *rank_out, gint64 *dims_out, GError **error)
{
  guint rank = MAX (rank_a, rank_b);

  for (guint i = 0; i < rank; i++)
    {
      gint64 a = i < rank - rank_a ? 1 : dims_a[i - (rank - rank_a)];
      gint64 b = i < rank - rank_b ? 1 : dims_b[i - (rank - rank_b)];

      if (a == b || b == 1)
        dims_out[i] = a;
      else if (a == 1)
        dims_out[i] = b;
      else
        return fw_kernel_fail (error, node,
                               _("inputs do not broadcast: axis %u is %" PRId64 " and %" PRId64),
                               i, a, b);
    }
  *rank_out = rank;
  return TRUE;
}

void
fw_kernel_broadcast_strides (guint rank, const gint64 *dims, guint out_rank, const gint64 *out_dims,
                             gint64 *strides)
{
  gint64 stride = 1;

  for (gint i = (gint) out_rank - 1; i >= 0; i--)
    {
      gint k = i - (gint) (out_rank - rank);

      strides[i] = (k < 0 || dims[k] == 1) ? 0 : stride;
      if (k >= 0)
        stride *= dims[k];
    }
  (void) out_dims;
}

gboolean
fw_kernel_axis (const FwNode *node, gint64 axis, guint rank, guint *out, GError **error)
{
  gint64 a = axis < 0 ? axis + (gint64) rank : axis;

  if (a < 0 || a >= (gint64) MAX (rank, 1) || (rank == 0 && axis != 0 && axis != -1))
    return fw_kernel_fail (error, node, _("axis %" PRId64 " is out of range for rank %u"), axis, rank);
  *out = (guint) a;
  return TRUE;
}
