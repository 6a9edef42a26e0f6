/* fw-rules.h: fusion rule sets (rules/NAME.yaml, docs/design.md §4.3). Rules name, prioritise or forbid the
 * candidates that the planner's class-based discovery finds; they are never needed for the common cases.
 *
 * A rule's pattern is a sequence of op types, op classes (`class:elementwise`) or named sub-patterns
 * (`{op: Gelu, or: erf_gelu}`), matched against a candidate's nodes in topological order. Every error
 * names file:line:column. This module matches; it does not discover or decide. */
#pragma once

#include <glib.h>

#include "graph/fw-graph-private.h"
#include "ops/fw-op-registry.h"

G_BEGIN_DECLS

typedef enum {
  FW_RULE_STRATEGY_ANY,                    /* not given */
  FW_RULE_STRATEGY_COMPUTE_MEMORY_PAIRING, /* out-fusable producer + elementwise epilogue */
  FW_RULE_STRATEGY_ELEMENTWISE_CHAIN,
  FW_RULE_STRATEGY_REDUCE_EPILOGUE,
  FW_RULE_STRATEGY_SEQUENTIAL,
} FwRuleStrategy;

typedef enum {
  FW_RULE_PREFER,  /* name and prioritise matching candidates */
  FW_RULE_FORBID,  /* refuse candidates that contain the pattern */
} FwRuleAction;

typedef enum {
  FW_PATTERN_OP,     /* one node of op type `op` */
  FW_PATTERN_CLASS,  /* one node of class `op_class` */
  FW_PATTERN_ANY_OF, /* one of `alternatives`: op types or sub-pattern names (expanding to sequences) */
} FwPatternKind;

typedef struct
{
  FwPatternKind  kind;
  char          *op;            /* FW_PATTERN_OP */
  FwOpClass      op_class;      /* FW_PATTERN_CLASS */
  GPtrArray     *alternatives;  /* FW_PATTERN_ANY_OF: char*, an op type or a sub-pattern name */
  /* Added with the rule reader: `repeat: N` or `repeat: [MIN, MAX]` on a mapping item; 1 and 1 otherwise.
   * A bare sub-pattern name is an FW_PATTERN_ANY_OF with one alternative. The reader fills `alternatives`
   * for every kind with the names as written ("class:reduce" for a class item). */
  guint          repeat_min;
  guint          repeat_max;
} FwPatternItem;

typedef struct
{
  char           *name;
  char           *file;         /* where it was defined, for messages */
  guint           line;
  guint           column;
  GPtrArray      *pattern;      /* FwPatternItem* */
  FwRuleStrategy  strategy;
  FwRuleAction    action;
  gint            priority;     /* higher wins */
  gboolean        enabled;
  /* when: */
  GHashTable     *min_dim;      /* "M" | "N" | "K" | "C" | "H" | "W" | "elements" → gint64* */
  guint32         dtype_mask;   /* bit (1 << FwDType) per allowed dtype; 0 = any */
  gboolean        is_subpattern; /* defined under `patterns:`, usable by name, never a rule by itself */
} FwRule;

typedef struct _FwRuleSet FwRuleSet;

FwRuleSet     *fw_rule_set_new            (void);
void           fw_rule_set_free           (FwRuleSet        *set);
/* The shipped rules (rules/NAME.yaml, compiled into the library). */
gboolean       fw_rule_set_load_builtin   (FwRuleSet        *set,
                                           GError          **error);
/* A file, or every .yaml file in a folder in name order. Later definitions of a rule name replace earlier
 * ones (so a team file can override a shipped rule). */
gboolean       fw_rule_set_load_path      (FwRuleSet        *set,
                                           const char       *file_or_dir,
                                           GError          **error);
gboolean       fw_rule_set_load_data      (FwRuleSet        *set,
                                           const char       *display_name,
                                           const char       *data,
                                           gsize             len,
                                           GError          **error);
guint          fw_rule_set_get_n_rules    (const FwRuleSet  *set);
const FwRule  *fw_rule_set_get_rule       (const FwRuleSet  *set,
                                           guint             index);
const FwRule  *fw_rule_set_lookup         (const FwRuleSet  *set,
                                           const char       *name);
/* The enabled PREFER rule that matches all of nodes (topological order), best first by priority, then
 * pattern length, then name; NULL if none. `when` conditions are checked on the nodes' inferred shapes. */
const FwRule  *fw_rule_set_match          (const FwRuleSet  *set,
                                           FwNode * const   *nodes,
                                           guint             n_nodes);
/* A rule that would have named the nodes but for its `when`, and the condition that did not hold. */
typedef struct
{
  const FwRule *rule;
  char         *condition;   /* translated: "the bias dtype is float32, not float16" */
} FwRuleMiss;

void           fw_rule_miss_free          (FwRuleMiss       *miss);
/* fw_rule_set_match, also appending to misses (FwRuleMiss*, owned by the array) the enabled PREFER rules,
 * best first, whose pattern matches all of nodes but whose `when` does not hold, down to the rule chosen:
 * why a better rule did not name them. */
const FwRule  *fw_rule_set_match_explain  (const FwRuleSet  *set,
                                           FwNode * const   *nodes,
                                           guint             n_nodes,
                                           GPtrArray        *misses);
/* The enabled FORBID rule whose pattern matches a contiguous run of nodes, or NULL. */
const FwRule  *fw_rule_set_forbids        (const FwRuleSet  *set,
                                           FwNode * const   *nodes,
                                           guint             n_nodes);

/* Added with the rule reader. */
#define FW_RULE_MAX_NODES 64   /* longest expansion of a pattern: the planner's max_fusion_size */
#define FW_RULE_MAX_NESTING 16 /* sub-patterns inside sub-patterns */

/* A file in the graph-autofusion articles' dialect (top-level `fusion_rules:`, rules/README.md) as the
 * equivalent file in our format; the loaders above read such files directly. */
char          *fw_rule_convert_file       (const char       *path,
                                           GError          **error);
/* The rule's `description:`, or NULL. */
const char    *fw_rule_get_description    (const FwRule     *rule);
/* The shortest and longest node sequences the rule's pattern expands to. */
void           fw_rule_get_length_range   (const FwRule     *rule,
                                           guint            *min_nodes,
                                           guint            *max_nodes);
/* The pattern as written in YAML flow style: "[MatMul, Add, {op: Gelu, or: erf_gelu}]". */
char          *fw_rule_format_pattern     (const FwRule     *rule);
/* "compute_memory_pairing", "elementwise_chain", "reduce_epilogue", "sequential"; "any" when not given. */
const char    *fw_rule_strategy_name      (FwRuleStrategy    strategy);
/* "prefer" or "forbid". */
const char    *fw_rule_action_name        (FwRuleAction      action);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwRuleSet, fw_rule_set_free)

G_END_DECLS
