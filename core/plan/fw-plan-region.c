/* fw-plan-region.c: the graphs a plan plans on their own (fw-plan.h, FwPlanRegion): the main graph and,
 * depth first, the bodies of its If, Loop and Scan nodes, each named by its path. */
#include "config.h"

#include <string.h>

#include "fw-plan-private.h"

static void
region_free (gpointer data)
{
  FwPlanRegion *region = data;

  g_free (region->path);
  /* The main graph's group_of is the plan's own. */
  if (region->owner != NULL)
    g_free (region->group_of);
  g_free (region);
}

static gboolean
is_control_flow (const FwNode *node)
{
  static const char *const ops[] = { "If", "Loop", "Scan" };

  if (node->domain[0] != '\0' && strcmp (node->domain, "ai.onnx") != 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (node->op_type, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

static FwPlanRegion *
add_region (FwPlan *plan, FwGraph *graph, FwNode *owner, char *path, guint *group_of)
{
  FwPlanRegion *region = g_new0 (FwPlanRegion, 1);

  region->graph = graph;
  region->owner = owner;
  region->path = path;
  region->group_of = group_of;
  g_ptr_array_add (plan->regions, region);
  g_hash_table_insert (plan->region_of, graph, region);
  return region;
}

/* A node's step in a path: its name, or "Op_index" for a node the file left unnamed. */
static char *
path_step (const FwNode *node)
{
  if (node->name != NULL && node->name[0] != '\0')
    return g_strdup (node->name[0] == '/' ? node->name + 1 : node->name);
  return g_strdup_printf ("%s_%u", node->op_type, node->index);
}

static void
find_in (FwPlan *plan, FwGraph *graph, const char *prefix)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      g_autofree char *step = NULL;

      if (!is_control_flow (node))
        continue;
      step = path_step (node);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          FwAttr *attr = &node->attrs[a];
          guint n = attr->g != NULL ? 1 : attr->graphs != NULL ? attr->n : 0;

          for (guint k = 0; k < n; k++)
            {
              FwGraph *body = attr->g != NULL ? attr->g : attr->graphs[k];
              char *path = attr->g != NULL ? g_strdup_printf ("%s/%s/%s", prefix, step, attr->name)
                                           : g_strdup_printf ("%s/%s/%s[%u]", prefix, step, attr->name, k);

              if (body == NULL || !body->linked || g_hash_table_contains (plan->region_of, body))
                {
                  g_free (path);
                  continue;
                }
              add_region (plan, body, node, path, g_new0 (guint, MAX (body->nodes->len, 1)));
              find_in (plan, body, path);
            }
        }
    }
}

void
fw_plan_find_regions (FwPlan *plan)
{
  FwGraph *graph = fw_model_get_graph (plan->model);

  plan->regions = g_ptr_array_new_with_free_func (region_free);
  plan->region_of = g_hash_table_new (NULL, NULL);
  add_region (plan, graph, NULL, NULL, plan->group_of);
  find_in (plan, graph, "");
}
