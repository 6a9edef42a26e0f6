/* fw-window.c: a 2-D window operator's geometry (fw-window.h). */
#include "config.h"

#include <string.h>

#include "fw-graph-private.h"
#include "fw-window.h"

static gboolean
pair (const FwNode *node, const char *name, gint64 out[2])
{
  guint n = 0;
  const gint64 *v = fw_node_get_attr_ints (node, name, &n);

  out[0] = out[1] = 1;
  if (v == NULL)
    return TRUE;
  if (n != 2 || v[0] < 1 || v[1] < 1)
    return FALSE;
  out[0] = v[0], out[1] = v[1];
  return TRUE;
}

gboolean
fw_window_2d (const FwNode *node, const gint64 k[2], FwWindow2d *w)
{
  const FwValue *x = node->inputs[0], *y = node->outputs[0];
  const char *auto_pad = fw_node_get_attr_string (node, "auto_pad");
  gboolean same = auto_pad != NULL && (strcmp (auto_pad, "SAME_UPPER") == 0 || strcmp (auto_pad, "SAME_LOWER") == 0);
  const gint64 *v;
  guint n = 0;

  memset (w, 0, sizeof *w);
  if (x == NULL || y == NULL || x->rank != 4 || y->rank != 4 || !pair (node, "strides", w->s) ||
      !pair (node, "dilations", w->d))
    return FALSE;
  for (gint i = 0; i < 2; i++)
    {
      w->in[i] = x->dims[2 + i].value;
      w->out[i] = y->dims[2 + i].value;
      w->k[i] = k[i];
    }
  if (same)
    for (gint i = 0; i < 2; i++)
      {
        gint64 total = MAX (0, (w->out[i] - 1) * w->s[i] + (w->k[i] - 1) * w->d[i] + 1 - w->in[i]);
        w->begin[i] = strcmp (auto_pad, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
      }
  else if ((auto_pad == NULL || strcmp (auto_pad, "VALID") != 0) && (v = fw_node_get_attr_ints (node, "pads", &n)))
    {
      if (n != 4 || v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0)
        return FALSE;
      w->begin[0] = v[0], w->begin[1] = v[1];
    }
  for (gint i = 0; i < 2; i++)
    w->end[i] = MAX (0, (w->out[i] - 1) * w->s[i] + (w->k[i] - 1) * w->d[i] + 1 - w->in[i] - w->begin[i]);
  return TRUE;
}
