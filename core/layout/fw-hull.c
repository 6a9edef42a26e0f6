#include "config.h"

#include <stdlib.h>

#include "fw-hull.h"

static int
compare_point (const void *a, const void *b)
{
  const FwLayoutPoint *p = a, *q = b;

  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return p->y < q->y ? -1 : p->y > q->y;
}

static gdouble
cross (FwLayoutPoint o, FwLayoutPoint a, FwLayoutPoint b)
{
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

guint
fw_hull_convex (FwLayoutPoint *points, guint n_points, FwLayoutPoint *hull)
{
  guint k = 0;

  qsort (points, n_points, sizeof (FwLayoutPoint), compare_point);
  for (guint i = 0; i < n_points; i++)
    {
      while (k >= 2 && cross (hull[k - 2], hull[k - 1], points[i]) <= 0)
        k--;
      hull[k++] = points[i];
    }
  for (guint i = n_points - 1, t = k + 1; i-- > 0;)
    {
      while (k >= t && cross (hull[k - 2], hull[k - 1], points[i]) <= 0)
        k--;
      hull[k++] = points[i];
    }
  return k > 1 ? k - 1 : k;
}

FwLayoutPoint *
fw_hull_around_nodes (FwLayout *layout, const GPtrArray *nodes, gdouble pad, guint *n_points)
{
  g_autoptr(GArray) pts = g_array_new (FALSE, FALSE, sizeof (FwLayoutPoint));
  /* Nodes inside one collapsed scope share a box; its corners need to count once. */
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  FwLayoutPoint *hull;

  *n_points = 0;
  for (guint i = 0; nodes != NULL && i < nodes->len; i++)
    {
      guint b = fw_layout_find_node (layout, g_ptr_array_index (nodes, i));
      const FwLayoutBox *box;

      if (b == G_MAXUINT || !g_hash_table_add (seen, GUINT_TO_POINTER (b + 1)))
        continue;
      box = fw_layout_get_box (layout, b);
      for (guint k = 0; k < 4; k++)
        {
          FwLayoutPoint p = { k & 1 ? box->x + box->w + pad : box->x - pad,
                              k & 2 ? box->y + box->h + pad : box->y - pad };
          g_array_append_val (pts, p);
        }
    }
  if (pts->len == 0)
    return NULL;
  hull = g_new (FwLayoutPoint, 2 * pts->len + 1);
  *n_points = fw_hull_convex ((FwLayoutPoint *) pts->data, pts->len, hull);
  return hull;
}

gboolean
fw_hull_contains (const FwLayoutPoint *hull, guint n_points, gdouble x, gdouble y)
{
  gint sign = 0;

  for (guint i = 0; i < n_points; i++)
    {
      FwLayoutPoint a = hull[i], b = hull[(i + 1) % n_points];
      FwLayoutPoint p = { x, y };
      gdouble c = cross (a, b, p);

      if (c == 0)
        continue;
      if (sign == 0)
        sign = c > 0 ? 1 : -1;
      else if ((c > 0 ? 1 : -1) != sign)
        return FALSE;
    }
  return TRUE;
}
