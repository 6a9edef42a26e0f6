/* fw-superkernel-plan.c: SuperKernel scopes over the fused plan and the barriers between their kernels
 * (fw-superkernel-plan.h, docs/superkernel.md). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "fw-superkernel-plan.h"
#include "fw-error.h"
#include "fw-kernel-spec.h"
#include "fw-plan-private.h"
#include "fw-schedule.h"

static const struct { const char *name; const char *cann; } codes[FW_SK_N_CODES] = {
  [FW_SK_END] = { NULL, NULL },
  [FW_SK_OPAQUE] = { "FW-SK-001", "DEFAULT_NODE" },
  [FW_SK_DYNAMIC] = { "FW-SK-002", "TASK_GROUP_NOT_EMPTY" },
  [FW_SK_CORES] = { "FW-SK-003", "EXCEED_DEVICE_MAX" },
  [FW_SK_DEADLOCK] = { "FW-SK-004", "EXIST_DEADLOCK" },
  [FW_SK_EXCLUDED] = { "FW-SK-005", "NOT_IN_SCOPE" },
  [FW_SK_SIZE] = { "FW-SK-006", "EXCEED_SCOPE_MAX" },
  [FW_SK_OUTSIDE] = { "FW-SK-007", "IN_UNFUSIBLE_SCOPE" },
};

const char *
fw_sk_code_name (FwSkCode code)
{
  return code < FW_SK_N_CODES ? codes[code].name : NULL;
}

const char *
fw_sk_code_cann_name (FwSkCode code)
{
  return code < FW_SK_N_CODES ? codes[code].cann : NULL;
}

const char *
fw_sk_sync_name (FwSkSync sync)
{
  static const char *const names[] = { "none", "vector", "cube", "all" };
  return sync <= FW_SK_SYNC_ALL ? names[sync] : "?";
}

const char *
fw_sk_core_type_name (FwSkCoreType type)
{
  static const char *const names[] = { "aiv", "aic", "mix" };
  return type <= FW_SK_MIX ? names[type] : "?";
}

void
fw_sk_options_init (FwSkOptions *options)
{
  memset (options, 0, sizeof *options);
  options->mode = FW_SK_AUTO;
}

/* A name is under a name scope when it is the scope or continues it past a '/': "/encoder/layers.3" holds
 * "/encoder/layers.3/attn/MatMul", not "/encoder/layers.30/…". */
static gboolean
under_scope (const char *name, const char *scope)
{
  gsize n = strlen (scope);

  if (name == NULL || n == 0 || strncmp (name, scope, n) != 0)
    return FALSE;
  return name[n] == '\0' || name[n] == '/' || scope[n - 1] == '/';
}

/* ---- what one step of the schedule is ---- */

typedef struct
{
  guint          step;
  FwCandidate   *group;      /* or NULL */
  FwNode        *node;       /* the single op, or the group's first node */
  FwSkCoreType   type;
  guint          cores;
  /* How its blocks cover its iteration space, for the barrier decision: known only for the vector kernels
   * we generate (flat or row tiles over one space, tiles dealt to blocks in order). */
  gboolean       mapped;
  gint64         total;
  gint64         tile;
  /* An epilogue after the vendor's own cube operator (the spec's FW_KERNEL_FORM_EPILOGUE: two launches): the
   * root runs first as a kernel of its own and the epilogue reads its result from global memory. */
  FwNode        *root_apart;
} Step;

static guint
step_n_nodes (const Step *s)
{
  return s->group ? s->group->nodes->len : 1;
}

static FwNode *
step_node (const Step *s, guint i)
{
  return s->group ? g_ptr_array_index (s->group->nodes, i) : s->node;
}

static void
describe_step (FwPlan *plan, const FwScheduleStep *from, guint position, const GArray *groups, Step *out)
{
  const FwProfile *profile = plan->profile;
  guint vector = MAX (profile->vector_cores, 1u), cube = MAX (profile->cube_cores, 1u);

  memset (out, 0, sizeof *out);
  out->step = position;
  if (from->node != NULL)
    {
      out->node = from->node;
      out->type = fw_node_class (from->node) == FW_OP_CLASS_OUT_FUSABLE ? FW_SK_AIC : FW_SK_AIV;
      /* CANN's own kernel: assume it takes every core of its kind. */
      out->cores = out->type == FW_SK_AIC ? cube : vector;
      return;
    }
  out->group = g_ptr_array_index (plan->candidates, g_array_index (groups, guint, from->group));
  out->node = g_ptr_array_index (out->group->nodes, 0);
  if (out->group->spec != NULL && fw_kernel_spec_get_root (out->group->spec) == NULL)
    {
      const FwResourceEstimate *res = fw_kernel_spec_get_resource (out->group->spec);
      gint64 tiles;

      out->type = FW_SK_AIV;
      out->total = fw_space_elements (fw_kernel_spec_get_space (out->group->spec));
      out->tile = MAX (res->tile_elements, 1);
      tiles = (out->total + out->tile - 1) / out->tile;
      out->cores = (guint) MIN ((gint64) vector, MAX (tiles, 1));
      out->mapped = out->total > 0;
    }
  else if (out->group->spec != NULL && fw_kernel_spec_get_form (out->group->spec) == FW_KERNEL_FORM_EPILOGUE &&
           fw_candidate_get_cost (out->group)->launches_after > 1)
    {
      out->type = FW_SK_AIV;
      out->cores = vector;
      out->root_apart = fw_kernel_spec_get_root (out->group->spec);
    }
  else
    {
      out->type = FW_SK_MIX;
      out->cores = cube;
    }
}

static gboolean
in_group (const Step *s, const FwNode *node)
{
  return s->group != NULL && node != NULL && g_ptr_array_find (s->group->nodes, node, NULL);
}

static gboolean
step_runs (const Step *s)
{
  return s->group != NULL || fw_node_runs (s->node);
}

/* Why the step cannot join a scope (FW_SK_END when it can), with the detail the message names. */
static FwSkCode
join_code (const FwSkOptions *o, guint max_cores, const Step *s, const char **detail)
{
  for (guint i = 0; i < step_n_nodes (s); i++)
    {
      FwNode *node = step_node (s, i);

      if (fw_node_class (node) == FW_OP_CLASS_OPAQUE)
        return FW_SK_OPAQUE;
      for (guint k = 0; k < node->n_inputs + node->n_outputs; k++)
        {
          FwValue *v = k < node->n_inputs ? node->inputs[k] : node->outputs[k - node->n_inputs];

          if (v != NULL && !fw_value_is_static (v))
            {
              *detail = v->name;
              return FW_SK_DYNAMIC;
            }
        }
      for (guint e = 0; o->excluded && o->excluded[e]; e++)
        if (under_scope (node->name, o->excluded[e]))
          {
            *detail = o->excluded[e];
            return FW_SK_EXCLUDED;
          }
    }
  if (s->cores > max_cores)
    return FW_SK_CORES;
  return FW_SK_END;
}

static char *
refusal_message (FwSkCode code, const Step *s, const char *detail, guint max_cores)
{
  const char *name = s->node->name, *op = s->node->op_type;

  switch (code)
    {
    case FW_SK_OPAQUE:
      /* TRANSLATORS: node name, op type */
      return g_strdup_printf (_("%s (%s) cannot join a SuperKernel: control flow, an unknown op or one with no "
                                "vector or cube kernel"), name, op);
    case FW_SK_DYNAMIC:
      /* TRANSLATORS: node name, op type, value name */
      return g_strdup_printf (_("%s (%s) has a shape known only at run time (%s)"), name, op, detail);
    case FW_SK_CORES:
      {
        g_autofree char *cores = g_strdup_printf ("%u", s->cores), *limit = g_strdup_printf ("%u", max_cores);
        /* TRANSLATORS: node name, op type, its blocks, the scope's cores */
        return g_strdup_printf (_("%s (%s) launches %s blocks, more than the %s cores a scope may use"), name, op,
                                cores, limit);
      }
    case FW_SK_EXCLUDED:
      /* TRANSLATORS: node name, op type, the user's name scope */
      return g_strdup_printf (_("%s (%s) is marked “no SuperKernel” (%s)"), name, op, detail);
    case FW_SK_OUTSIDE:
      return g_strdup_printf (_("%s (%s) is outside the SuperKernel scopes given"), name, op);
    case FW_SK_DEADLOCK:
      return g_strdup_printf (_("%s (%s) runs between the scope's kernels and reads what they wrote: it would have "
                                "to run inside the scope"), name, op);
    case FW_SK_SIZE:
    case FW_SK_END:
    case FW_SK_N_CODES:
    default:
      break;
    }
  return NULL;
}

/* ---- scopes ---- */

/* Where a visited step went; scope is the serial of the scope it was added to (sk->serials maps serials to
 * the scopes kept), G_MAXUINT when it was not added to one. */
typedef struct
{
  guint scope;
  guint kernel;
  guint refusal;   /* index in sk->refusals, or G_MAXUINT */
} Place;


typedef struct
{
  FwPlan           *plan;
  const FwSkOptions *options;
  guint             max_kernels;
  guint             max_cores;
  FwSkPlan         *sk;
  FwSkScope        *open;        /* the scope being filled, or NULL */
  gint              open_user;   /* its user scope, or -1 */
  GArray           *open_steps;  /* Step, the open scope's kernels */
  GHashTable       *pending;     /* FwValue* → index in open_steps + 1: written since the last barrier */
  guint             pending_types; /* 1 << FwSkCoreType of the kernels since the last barrier */
  GPtrArray        *users;       /* FwSkUserScope*: sk->user_scopes */
  GHashTable      **user_nodes;  /* per user scope of nodes: the node names, else NULL */
  guint            *parts;       /* per user scope: parts made so far */
  guint             serial;      /* of the open scope: scopes opened so far */
  GArray           *step_places; /* Place, one per visited step */
  GArray           *scope_users; /* gint per scope in sk->scopes: its user scope, or -1 */
} Build;

/* The user's scope holding the step, or -1: the first whose name scope holds every node of it, or whose
 * node list names one of them. */
static gint
user_scope_of (const Build *b, const Step *s)
{
  for (guint p = 0; p < b->users->len; p++)
    {
      const FwSkUserScope *u = g_ptr_array_index (b->users, p);
      gboolean all = TRUE, any = FALSE;

      for (guint i = 0; i < step_n_nodes (s); i++)
        {
          const char *name = step_node (s, i)->name;

          if (u->prefix != NULL)
            all = all && under_scope (name, u->prefix);
          else
            any = any || (name != NULL && g_hash_table_contains (b->user_nodes[p], name));
        }
      if (u->prefix != NULL ? all : any)
        return (gint) p;
    }
  return -1;
}

/* Why a user's scope ended where its kernels did. */
static char *
user_end_message (const Build *b, gint user)
{
  if (user >= 0 && ((FwSkUserScope *) g_ptr_array_index (b->users, user))->prefix == NULL)
    return g_strdup (_("the kernels chosen for it ended"));
  return g_strdup (_("the name scope ended"));
}

static void
record_place (Build *b, const Step *s, guint scope, guint kernel, guint refusal)
{
  Place p = { scope, kernel, refusal };

  g_array_append_val (b->step_places, p);
  for (guint i = 0; i < step_n_nodes (s); i++)
    if (step_node (s, i) != s->root_apart)   /* the root has its own place, as the kernel before */
      g_hash_table_insert (b->sk->places, step_node (s, i), GUINT_TO_POINTER (b->step_places->len));
}

static void
scope_free (gpointer data)
{
  FwSkScope *s = data;

  g_array_unref (s->kernels);
  g_free (s->name);
  g_free (s->end_message);
  g_free (s);
}

static void
refusal_free (gpointer data)
{
  FwSkRefusal *r = data;

  g_free (r->message);
  g_free (r);
}

/* Whether the kernel at `reader` reads value exactly where the kernel at `writer` wrote it, block for block:
 * both tile one space of the same size into the same tiles dealt to the same blocks, and the value is that
 * whole space in both. */
static gboolean
same_blocks (const Step *writer, const Step *reader, const FwValue *value)
{
  const FwSpecValue *w, *r;

  if (!writer->mapped || !reader->mapped || writer->total != reader->total || writer->tile != reader->tile ||
      writer->cores != reader->cores)
    return FALSE;
  w = fw_kernel_spec_lookup (writer->group->spec, value);
  r = fw_kernel_spec_lookup (reader->group->spec, value);
  return w != NULL && r != NULL && w->role == FW_SHAPE_FULL && r->role == FW_SHAPE_FULL &&
         fw_value_get_n_elements (value) == writer->total;
}

static FwSkSync
sync_for (guint types)
{
  if (types == 1u << FW_SK_AIV)
    return FW_SK_SYNC_VECTOR;
  if (types == 1u << FW_SK_AIC)
    return FW_SK_SYNC_CUBE;
  return FW_SK_SYNC_ALL;
}

static void
for_each_input (const Step *s, void (*fn) (FwValue *, gpointer), gpointer data)
{
  for (guint i = 0; i < step_n_nodes (s); i++)
    {
      FwNode *node = step_node (s, i);

      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] != NULL && node->inputs[k]->constant == NULL && !in_group (s, node->inputs[k]->producer))
          fn (node->inputs[k], data);
    }
}

typedef struct
{
  Build       *b;
  const Step  *reader;
  const FwValue *needs;
} SyncCheck;

static void
check_input (FwValue *v, gpointer data)
{
  SyncCheck *c = data;
  guint w;

  if (c->needs != NULL)
    return;
  w = GPOINTER_TO_UINT (g_hash_table_lookup (c->b->pending, v));
  if (w != 0 && !same_blocks (&g_array_index (c->b->open_steps, Step, w - 1), c->reader, v))
    c->needs = v;
}

static void
close_scope (Build *b, FwSkCode code, FwNode *node, char *message)
{
  FwSkScope *s = b->open;

  b->open = NULL;
  g_hash_table_remove_all (b->pending);
  b->pending_types = 0;
  if (s == NULL)
    {
      g_free (message);
      return;
    }
  s->end = code;
  s->end_node = node;
  s->end_message = message;
  if (s->kernels->len < 2)
    {
      scope_free (s);   /* one kernel is its own launch already */
      return;
    }
  g_array_index (b->sk->serials, guint, b->serial - 1) = b->sk->scopes->len;
  for (guint i = 0; i < s->kernels->len; i++)
    {
      FwSkKernel *k = &g_array_index (s->kernels, FwSkKernel, i);
      s->cores = MAX (s->cores, k->cores);
    }
  for (guint i = 0; i < s->kernels->len; i++)
    s->feed_sync += g_array_index (s->kernels, FwSkKernel, i).cores < s->cores;
  /* Apart, N kernels pay N launches and N pipeline drains; together one launch, one drain and a drain per
   * barrier kept. */
  s->saving_s = (s->kernels->len - 1) * b->plan->profile->launch_overhead_s +
                s->syncs_removed * b->plan->profile->sync_overhead_s;
  b->sk->saving_s += s->saving_s;
  b->sk->launches_after -= s->kernels->len - 1;
  g_ptr_array_add (b->sk->scopes, s);
  g_array_append_val (b->scope_users, b->open_user);
}

static void
open_scope (Build *b, gint user)
{
  FwSkScope *s = g_new0 (FwSkScope, 1);

  s->kernels = g_array_new (FALSE, FALSE, sizeof (FwSkKernel));
  if (user < 0)
    s->name = g_strdup_printf ("sk_%03u", b->sk->scopes->len);
  else if (b->parts[user]++ == 0)
    s->name = g_strdup (((FwSkUserScope *) g_ptr_array_index (b->users, user))->name);
  else
    s->name = g_strdup_printf ("%s#%u", ((FwSkUserScope *) g_ptr_array_index (b->users, user))->name,
                               b->parts[user]);
  s->user = user < 0 ? G_MAXUINT : (guint) user;
  b->open = s;
  b->open_user = user;
  b->serial++;
  {
    guint dropped = G_MAXUINT;
    g_array_append_val (b->sk->serials, dropped);
  }
  g_array_set_size (b->open_steps, 0);
}

static void
add_output (FwValue *v, Build *b)
{
  g_hash_table_insert (b->pending, v, GUINT_TO_POINTER (b->open_steps->len));
}

static void
append_kernel (Build *b, const Step *s)
{
  FwSkScope *scope = b->open;
  FwSkKernel k = { s->step, s->group ? s->group->index : G_MAXUINT, s->node, s->type, s->cores,
                   FW_SK_SYNC_NONE, NULL };

  if (scope->kernels->len > 0)
    {
      SyncCheck check = { b, s, NULL };

      /* The epilogue reads the cube operator's result, which the cube cores just wrote. */
      if (s->root_apart != NULL)
        check.needs = s->root_apart->outputs[0];
      else
        for_each_input (s, check_input, &check);
      if (check.needs != NULL)
        {
          k.sync = sync_for (b->pending_types | 1u << s->type);
          k.sync_value = check.needs;
          scope->syncs_kept++;
          g_hash_table_remove_all (b->pending);
          b->pending_types = 0;
        }
      else
        scope->syncs_removed++;
    }
  g_array_append_val (scope->kernels, k);
  g_array_append_val (b->open_steps, *s);
  b->pending_types |= 1u << s->type;
  for (guint i = 0; i < step_n_nodes (s); i++)
    {
      FwNode *node = step_node (s, i);

      for (guint o = 0; o < node->n_outputs; o++)
        if (node->outputs[o] != NULL &&
            (s->group == NULL || s->group->spec == NULL || fw_kernel_spec_is_output (s->group->spec, node->outputs[o])))
          add_output (node->outputs[o], b);
    }
}

static gboolean
reads_open_scope (Build *b, const Step *s)
{
  for (guint i = 0; i < step_n_nodes (s); i++)
    {
      FwNode *node = step_node (s, i);

      for (guint k = 0; k < node->n_inputs; k++)
        for (guint j = 0; node->inputs[k] != NULL && j < b->open_steps->len; j++)
          {
            const Step *w = &g_array_index (b->open_steps, Step, j);
            FwNode *producer = node->inputs[k]->producer;

            if (producer != NULL && (w->group ? in_group (w, producer) : w->node == producer))
              return TRUE;
          }
    }
  return FALSE;
}

static void
refuse (Build *b, const Step *s, FwSkCode code, char *message)
{
  FwSkRefusal *r = g_new0 (FwSkRefusal, 1);

  r->step = s->step;
  r->node = s->node;
  r->code = code;
  r->message = message;
  g_ptr_array_add (b->sk->refusals, r);
}

static void visit_one (Build *b, const Step *s);

/* A step is one launch, or two where the group's compute root runs as the vendor's operator first. */
static void
visit (Build *b, const Step *s)
{
  Step root, epilogue;

  if (s->root_apart == NULL)
    {
      visit_one (b, s);
      return;
    }
  memset (&root, 0, sizeof root);
  root.step = s->step;
  root.node = s->root_apart;
  root.type = FW_SK_AIC;
  root.cores = MAX (b->plan->profile->cube_cores, 1u);
  visit_one (b, &root);
  epilogue = *s;
  for (guint i = 0; i < step_n_nodes (s) && epilogue.node == s->root_apart; i++)
    epilogue.node = step_node (s, i);
  visit_one (b, &epilogue);
}

static void
visit_one (Build *b, const Step *s)
{
  const char *detail = NULL;
  FwSkCode code = join_code (b->options, b->max_cores, s, &detail);
  gint user = b->users->len > 0 ? user_scope_of (b, s) : -1;

  b->sk->n_kernels++;
  if (code == FW_SK_END && b->users->len > 0 && user < 0)
    /* A kernel outside the user's scopes that reads what the open one wrote would have to run inside it. */
    code = b->open != NULL && reads_open_scope (b, s) ? FW_SK_DEADLOCK : FW_SK_OUTSIDE;
  if (code != FW_SK_END)
    {
      close_scope (b, code, s->node, refusal_message (code, s, detail, b->max_cores));
      /* The kernels outside the user's scopes are everything else: not worth a line each. */
      if (code != FW_SK_OUTSIDE && code != FW_SK_DEADLOCK)
        {
          refuse (b, s, code, refusal_message (code, s, detail, b->max_cores));
          record_place (b, s, G_MAXUINT, 0, b->sk->refusals->len - 1);
        }
      else
        record_place (b, s, G_MAXUINT, 0, G_MAXUINT);
      return;
    }
  if (b->open != NULL && b->open_user != user)
    close_scope (b, FW_SK_END, s->node, user_end_message (b, b->open_user));
  if (b->open != NULL && b->open->kernels->len >= b->max_kernels)
    {
      g_autofree char *limit = g_strdup_printf ("%u", b->max_kernels);
      /* TRANSLATORS: the most kernels one scope may hold */
      close_scope (b, FW_SK_SIZE, s->node, g_strdup_printf (_("the scope reached its limit of %s kernels"), limit));
    }
  if (b->open == NULL)
    open_scope (b, user);
  record_place (b, s, b->serial - 1, b->open->kernels->len, G_MAXUINT);
  append_kernel (b, s);
}

/* A user's scope broken off by a kernel outside it only deadlocks, or is only cut short, when more of it
 * follows; where none does, it simply ended there. */
static void
settle_user_ends (Build *b)
{
  for (guint i = 0; i < b->sk->scopes->len; i++)
    {
      FwSkScope *s = g_ptr_array_index (b->sk->scopes, i);
      gint user = g_array_index (b->scope_users, gint, i);
      gboolean more = FALSE;

      if (user < 0 || (s->end != FW_SK_DEADLOCK && s->end != FW_SK_OUTSIDE))
        continue;
      for (guint j = i + 1; j < b->sk->scopes->len && !more; j++)
        more = g_array_index (b->scope_users, gint, j) == user;
      if (more)
        continue;
      s->end = FW_SK_END;
      g_free (s->end_message);
      s->end_message = user_end_message (b, user);
    }
}

/* The name scopes given (options->scopes) first, then the scopes the plan's decisions made, a name given
 * twice counted once. */
static GPtrArray *
user_scopes_for (FwPlan *plan, const FwSkOptions *options)
{
  GPtrArray *users = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_sk_user_scope_free);
  g_autoptr(GPtrArray) decided = fw_plan_get_user_scopes (plan);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; options->scopes && options->scopes[i]; i++)
    {
      FwSkUserScope *u = fw_sk_user_scope_new (options->scopes[i], options->scopes[i], NULL);

      g_free (u->source);
      u->source = g_strdup ("--superkernel-scope");
      if (g_hash_table_contains (names, u->name))
        {
          fw_sk_user_scope_free (u);
          continue;
        }
      g_hash_table_add (names, u->name);
      g_ptr_array_add (users, u);
    }
  for (guint i = 0; i < decided->len; i++)
    {
      FwSkUserScope *u = g_ptr_array_index (decided, i);

      if (g_hash_table_contains (names, u->name))
        continue;
      g_hash_table_add (names, u->name);
      g_ptr_array_add (users, fw_sk_user_scope_copy (u));
    }
  return users;
}

FwSkPlan *
fw_sk_plan_build (FwPlan *plan, const FwSkOptions *options, GError **error)
{
  FwSkOptions automatic;
  g_autoptr(GArray) groups = NULL;
  g_autoptr(GArray) schedule = NULL;
  FwSkPlan *sk;
  Build b = { 0 };

  g_return_val_if_fail (plan != NULL, NULL);
  if (options == NULL)
    {
      fw_sk_options_init (&automatic);
      options = &automatic;
    }
  groups = fw_schedule_fused_candidates (plan);
  schedule = fw_schedule_build (plan, (const guint *) groups->data, groups->len, error);
  if (schedule == NULL)
    return NULL;
  sk = g_new0 (FwSkPlan, 1);
  sk->options = *options;
  sk->options.scopes = g_strdupv (options->scopes);
  sk->options.excluded = g_strdupv (options->excluded);
  sk->user_scopes = user_scopes_for (plan, options);
  sk->scopes = g_ptr_array_new_with_free_func (scope_free);
  sk->refusals = g_ptr_array_new_with_free_func (refusal_free);
  sk->places = g_hash_table_new (NULL, NULL);
  sk->serials = g_array_new (FALSE, FALSE, sizeof (guint));
  sk->launches_after = plan->after.launches;
  if (options->mode == FW_SK_OFF)
    return sk;
  b.plan = plan;
  b.options = &sk->options;
  b.max_kernels = options->max_kernels ? options->max_kernels : FW_SK_DEFAULT_MAX_KERNELS;
  b.max_cores = options->max_cores ? options->max_cores
                                   : MAX (MAX (plan->profile->vector_cores, plan->profile->cube_cores), 1u);
  b.sk = sk;
  b.open_user = -1;
  b.open_steps = g_array_new (FALSE, FALSE, sizeof (Step));
  b.pending = g_hash_table_new (NULL, NULL);
  b.users = sk->user_scopes;
  b.parts = g_new0 (guint, b.users->len);
  b.user_nodes = g_new0 (GHashTable *, b.users->len);
  for (guint u = 0; u < b.users->len; u++)
    {
      const FwSkUserScope *us = g_ptr_array_index (b.users, u);

      if (us->prefix != NULL)
        continue;
      b.user_nodes[u] = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; us->nodes && us->nodes[i]; i++)
        g_hash_table_add (b.user_nodes[u], us->nodes[i]);
    }
  b.scope_users = g_array_new (FALSE, FALSE, sizeof (gint));
  b.step_places = g_array_new (FALSE, FALSE, sizeof (Place));
  for (guint i = 0; i < schedule->len; i++)
    {
      Step s;

      describe_step (plan, &g_array_index (schedule, FwScheduleStep, i), i, groups, &s);
      if (step_runs (&s))
        visit (&b, &s);
    }
  close_scope (&b, FW_SK_END, NULL, b.users->len > 0 ? user_end_message (&b, b.open_user) : g_strdup (_("the model ended")));
  settle_user_ends (&b);
  /* Places refer to steps; keep them as the plan's answer per node. */
  sk->step_places = b.step_places;
  g_array_unref (b.scope_users);
  g_array_unref (b.open_steps);
  g_hash_table_unref (b.pending);
  for (guint u = 0; u < b.users->len; u++)
    g_clear_pointer (&b.user_nodes[u], g_hash_table_unref);
  g_free (b.user_nodes);
  g_free (b.parts);
  return sk;
}

static gboolean
step_holds (const Step *s, const FwNode *node)
{
  return s->group != NULL ? in_group (s, node) : s->node == node;
}

/* Where an end of a range lies among the running steps: the step holding node, else (a node folded at load,
 * a shape computation) the steps around it in topological order: *down the first step after it, *up the
 * last before it (G_MAXUINT when none). */
static void
place_end (const GArray *steps, const FwNode *node, guint *down, guint *up)
{
  *down = *up = G_MAXUINT;
  for (guint i = 0; i < steps->len; i++)
    if (step_holds (&g_array_index (steps, Step, i), node))
      {
        *down = *up = i;
        return;
      }
  for (guint i = 0; i < steps->len; i++)
    {
      const Step *s = &g_array_index (steps, Step, i);

      for (guint k = 0; k < step_n_nodes (s); k++)
        {
          guint t = step_node (s, k)->topo_index;

          if (t > node->topo_index && *down == G_MAXUINT)
            *down = i;
          if (t < node->topo_index)
            *up = i;
        }
    }
}

GStrv
fw_sk_plan_range_nodes (FwPlan *plan, const FwNode *first, const FwNode *last, guint *n_kernels, GError **error)
{
  g_autoptr(GArray) groups = NULL;
  g_autoptr(GArray) schedule = NULL;
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (Step));
  g_autoptr(GPtrArray) names = NULL;
  guint a_down, a_up, b_down, b_up, from, to;

  g_return_val_if_fail (plan != NULL && first != NULL && last != NULL, NULL);

  groups = fw_schedule_fused_candidates (plan);
  schedule = fw_schedule_build (plan, (const guint *) groups->data, groups->len, error);
  if (schedule == NULL)
    return NULL;
  for (guint i = 0; i < schedule->len; i++)
    {
      Step s;

      describe_step (plan, &g_array_index (schedule, FwScheduleStep, i), i, groups, &s);
      if (step_runs (&s))
        g_array_append_val (steps, s);
    }
  place_end (steps, first, &a_down, &a_up);
  place_end (steps, last, &b_down, &b_up);
  /* An end with nothing on one side stands for the step on the other. */
  a_down = a_down != G_MAXUINT ? a_down : a_up;
  a_up = a_up != G_MAXUINT ? a_up : a_down;
  b_down = b_down != G_MAXUINT ? b_down : b_up;
  b_up = b_up != G_MAXUINT ? b_up : b_down;
  if (a_down == G_MAXUINT || b_down == G_MAXUINT)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s", _("the model has no kernel that runs"));
      return NULL;
    }
  from = a_up < b_down || (a_up == b_up && a_down <= b_down) ? a_down : b_down;
  to = from == a_down ? b_up : a_up;
  names = g_ptr_array_new ();
  for (guint i = from; i <= to && to != G_MAXUINT && from <= to; i++)
    {
      const Step *s = &g_array_index (steps, Step, i);

      for (guint k = 0; k < step_n_nodes (s); k++)
        g_ptr_array_add (names, g_strdup (step_node (s, k)->name));
    }
  if (n_kernels != NULL)
    *n_kernels = from <= to ? to - from + 1 : 0;
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

void
fw_sk_plan_free (FwSkPlan *sk)
{
  if (sk == NULL)
    return;
  g_strfreev (sk->options.scopes);
  g_strfreev (sk->options.excluded);
  g_ptr_array_unref (sk->user_scopes);
  g_ptr_array_unref (sk->scopes);
  g_ptr_array_unref (sk->refusals);
  g_hash_table_unref (sk->places);
  g_array_unref (sk->serials);
  if (sk->step_places != NULL)
    g_array_unref (sk->step_places);
  g_free (sk);
}

FwSkPlace
fw_sk_plan_locate (const FwSkPlan *sk, const FwNode *node, guint *scope, guint *kernel, guint *refusal)
{
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (sk->places, node));
  const Place *p;
  guint kept;

  if (at == 0)
    return FW_SK_PLACE_NONE;
  p = &g_array_index (sk->step_places, Place, at - 1);
  if (p->refusal != G_MAXUINT)
    {
      if (refusal)
        *refusal = p->refusal;
      return FW_SK_PLACE_REFUSED;
    }
  kept = p->scope != G_MAXUINT ? g_array_index (sk->serials, guint, p->scope) : G_MAXUINT;
  if (kept == G_MAXUINT)
    return FW_SK_PLACE_ALONE;
  if (scope)
    *scope = kept;
  if (kernel)
    *kernel = p->kernel;
  return FW_SK_PLACE_SCOPE;
}
