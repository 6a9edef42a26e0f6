/* fw-graph-view-search.c: finding a box by a node's name or op type, or a scope's name, in reading order. */
#include "config.h"

#include <string.h>

#include "fw-graph-view-private.h"

static gboolean
contains_casefold (const char *haystack, const char *needle)
{
  g_autofree char *folded = NULL;

  if (haystack == NULL)
    return FALSE;
  folded = g_utf8_casefold (haystack, -1);
  return strstr (folded, needle) != NULL;
}

static gboolean
box_matches (const FwLayoutBox *box, const char *needle)
{
  if (contains_casefold (box->scope, needle))
    return TRUE;
  if (box->kind == FW_LAYOUT_BOX_SCOPE || box->node == NULL)
    return contains_casefold (box->label, needle);
  return contains_casefold (fw_node_get_name (box->node), needle)
    || contains_casefold (fw_node_get_op_type (box->node), needle);
}

gboolean
fw_graph_view_search (FwGraphView *self, const char *text, gboolean forward)
{
  g_autofree char *needle = NULL;
  guint start;

  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FALSE);
  if (text == NULL || *text == '\0' || self->n_boxes == 0)
    return FALSE;
  needle = g_utf8_casefold (text, -1);
  /* Steps in reading order (layer, then x), wrapping round, from the last hit. */
  start = self->search_pos;
  for (guint step = 1; step <= self->n_boxes; step++)
    {
      guint pos;

      if (start == G_MAXUINT)
        pos = forward ? step - 1 : self->n_boxes - step;
      else if (forward)
        pos = (start + step) % self->n_boxes;
      else
        pos = (start + self->n_boxes - step % self->n_boxes) % self->n_boxes;
      if (box_matches (fw_layout_get_box (self->layout, self->order[pos]), needle))
        {
          self->search_pos = pos;
          fw_graph_view_select_box (self, self->order[pos], TRUE);
          fw_graph_view_frame_box (self, self->order[pos]);
          return TRUE;
        }
    }
  return FALSE;
}
