/* fw-broadcast.c: numpy broadcasting over dims that may be symbolic. */
#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-private.h"

char *
fw_format_dims (gint rank, const FwDim *dims)
{
  GString *s;

  if (rank < 0)
    return g_strdup ("?");
  s = g_string_new ("[");
  for (gint i = 0; i < rank; i++)
    {
      if (i)
        g_string_append_c (s, ',');
      if (dims[i].value >= 0)
        g_string_append_printf (s, "%" PRId64, dims[i].value);
      else if (dims[i].symbol)
        g_string_append (s, dims[i].symbol);
      else
        g_string_append_c (s, '?');
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* One dim of the result; FALSE on a static mismatch. An unknown dim against a static d > 1 must be 1 or d
 * at run time, and the result is d either way; against 1 or unknown, nothing is known. */
static gboolean
broadcast_dim (FwDim a, FwDim b, FwDim *out)
{
  if (a.value >= 0 && b.value >= 0)
    {
      if (a.value == b.value || b.value == 1)
        *out = a;
      else if (a.value == 1)
        *out = b;
      else
        return FALSE;
      return TRUE;
    }
  if (a.value == 1)
    *out = b;
  else if (b.value == 1)
    *out = a;
  else if (a.value > 1)
    *out = a;
  else if (b.value > 1)
    *out = b;
  else if (a.value == 0 || b.value == 0)
    *out = a.value == 0 ? a : b;
  else if (a.symbol && b.symbol && strcmp (a.symbol, b.symbol) == 0)
    *out = a;
  else
    *out = FW_DIM_UNKNOWN;
  return TRUE;
}

gboolean
fw_broadcast_pair (const FwNode *node, gint ra, const FwDim *a, gint rb, const FwDim *b, gint *rank_out,
                   FwDim *out, GError **error)
{
  gint r;

  if (ra < 0 || rb < 0 || ra > FW_MAX_RANK || rb > FW_MAX_RANK)
    {
      *rank_out = FW_RANK_UNKNOWN;
      return TRUE;
    }
  r = MAX (ra, rb);
  for (gint i = 0; i < r; i++)
    {
      gint ia = i - (r - ra);
      gint ib = i - (r - rb);
      FwDim da = ia >= 0 ? a[ia] : FW_DIM_STATIC (1);
      FwDim db = ib >= 0 ? b[ib] : FW_DIM_STATIC (1);

      if (!broadcast_dim (da, db, &out[i]))
        {
          g_autofree char *sa = fw_format_dims (ra, a);
          g_autofree char *sb = fw_format_dims (rb, b);
          return fw_infer_error (error, node, _("shapes %s and %s cannot be broadcast together"), sa, sb);
        }
    }
  *rank_out = r;
  return TRUE;
}

gboolean
fw_broadcast_shapes (const FwNode *node, guint n, FwValue * const *values, gint *rank_out, FwDim *out,
                     GError **error)
{
  gint rank = 0;
  gboolean any = FALSE;

  for (guint k = 0; k < n; k++)
    {
      const FwValue *v = values[k];
      FwDim tmp[FW_MAX_RANK];

      if (v == NULL)
        continue;
      if (v->rank < 0)
        {
          *rank_out = FW_RANK_UNKNOWN;
          return TRUE;
        }
      if (!any)
        {
          if (v->rank > FW_MAX_RANK)
            {
              *rank_out = FW_RANK_UNKNOWN;
              return TRUE;
            }
          memcpy (out, v->dims, v->rank * sizeof (FwDim));
          rank = v->rank;
          any = TRUE;
          continue;
        }
      if (!fw_broadcast_pair (node, rank, out, v->rank, v->dims, &rank, tmp, error))
        return FALSE;
      if (rank < 0)
        {
          *rank_out = FW_RANK_UNKNOWN;
          return TRUE;
        }
      memcpy (out, tmp, rank * sizeof (FwDim));
    }
  *rank_out = any ? rank : FW_RANK_UNKNOWN;
  return TRUE;
}
