/* fw-rules-private.h: what the rule reader (fw-rule-parser.c), the resolver and index (fw-rules.c) and the
 * matcher (fw-rule-match.c) share.
 *
 * A file is read in two passes. The parser turns YAML into FwRuleEntry records and checks everything that
 * needs only the file itself (keys, types, classes, op types of the default domain, duplicate names). The
 * resolver then compiles every entry of the set as it would be after the file is added: bare names become
 * sub-pattern references, cycles and nesting are refused, lengths are bounded, and each pattern becomes a
 * small tree (FwRuleSeq) that the matcher runs over a candidate with bit masks of positions. Only when all
 * of that succeeds does the set change. */
#pragma once

#include <gio/gio.h>

#include "rules/fw-rules.h"
#include "yaml/fw-yaml.h"

G_BEGIN_DECLS

typedef enum {
  FW_RULE_DIM_M,
  FW_RULE_DIM_N,
  FW_RULE_DIM_K,
  FW_RULE_DIM_C,
  FW_RULE_DIM_H,
  FW_RULE_DIM_W,
  FW_RULE_DIM_ELEMENTS,
  FW_RULE_DIM_HIDDEN,
  FW_RULE_N_DIMS
} FwRuleDim;

extern const char * const fw_rule_dim_names[FW_RULE_N_DIMS + 1];

/* The operands `when: {operand_dtype: …}` names (fw-rule-match.c says which value each is). */
typedef enum {
  FW_RULE_OPERAND_INPUT,
  FW_RULE_OPERAND_WEIGHT,
  FW_RULE_OPERAND_BIAS,
  FW_RULE_OPERAND_OUTPUT,
  FW_RULE_N_OPERANDS
} FwRuleOperand;

extern const char * const fw_rule_operand_names[FW_RULE_N_OPERANDS + 1];

typedef struct
{
  guint line;
  guint column;
} FwRuleLoc;

/* A pattern item with where it and each of its alternatives were written. */
typedef struct
{
  FwPatternItem  pub;
  FwRuleLoc      loc;
  GArray        *alt_locs;    /* FwRuleLoc per pub.alternatives entry (ANY_OF), else NULL */
} FwRuleItem;

/* A rule or a sub-pattern; FwRule comes first so the two pointers convert. */
typedef struct
{
  FwRule     pub;
  char      *description;
  FwRuleLoc  pattern_loc;     /* the pattern list, for length errors */
  gint64     min_dim[FW_RULE_N_DIMS]; /* -1: no condition */
  gint64     max_dim[FW_RULE_N_DIMS];
  gint64     eq_dim[FW_RULE_N_DIMS];
  gboolean   has_dims;
  guint32    operand_dtype[FW_RULE_N_OPERANDS]; /* dtype masks as FwRule.dtype_mask; 0 = any */
  gboolean   has_operand_dtype;
  guint      min_len;         /* filled by the resolver */
  guint      max_len;
} FwRuleEntry;

void           fw_rule_entry_free     (gpointer           entry);
/* Parses one document into entries (FwRuleEntry*, in file order). */
GPtrArray     *fw_rule_parse          (const FwYamlDocument *doc,
                                       GError           **error);
/* "FILE:LINE:COL: message" in FW_ERROR_INVALID. */
gboolean       fw_rule_error          (GError           **error,
                                       const char        *file,
                                       FwRuleLoc          loc,
                                       const char        *format,
                                       ...) G_GNUC_PRINTF (4, 5);
/* The closest of candidates to word (case-insensitive equality first), or NULL when none is close. */
const char    *fw_rule_closest        (const char        *word,
                                       const char * const *candidates,
                                       guint              n_candidates);
/* A close registry op type (default domain) or entry name in extra (char*, may be NULL) for an unknown
 * op type, or NULL. */
const char    *fw_rule_suggest_op     (const char        *word,
                                       const GPtrArray   *extra);
/* Splits "domain:Op" (FALSE when there is no colon); "class:NAME" is not split here. */
gboolean       fw_rule_split_domain   (const char        *name,
                                       char             **domain,
                                       char             **op_type);
gboolean       fw_rule_domain_is_default (const char     *domain);
gboolean       fw_rule_class_from_name (const char       *name,
                                        FwOpClass        *out);

/* The graph-autofusion articles' dialect (fw-rule-dialect.c): whether a document is one (top-level
 * `fusion_rules`), and our format's text for it, or NULL with FILE:LINE:COL errors. */
gboolean       fw_rule_dialect_detect  (const FwYamlDocument *doc);
char          *fw_rule_dialect_convert (const FwYamlDocument *doc,
                                        GError           **error);

/* Compiled patterns. */
typedef enum {
  FW_RULE_ATOM_OP,      /* a registry row: node->op, or the same domain and op type */
  FW_RULE_ATOM_LITERAL, /* an op of a non-default domain that the registry does not know */
  FW_RULE_ATOM_CLASS,
} FwRuleAtomKind;

typedef struct
{
  FwRuleAtomKind  kind;
  const FwOpInfo *info;      /* OP */
  const char     *domain;    /* OP, LITERAL: "" for the default domain */
  const char     *op_type;   /* OP, LITERAL */
  FwOpClass       op_class;  /* CLASS */
} FwRuleAtom;

typedef struct _FwRuleSeq FwRuleSeq;

typedef struct
{
  FwRuleAtom        atom;
  const FwRuleSeq  *sub;     /* a sub-pattern; atom unused */
} FwRuleAlt;

typedef struct
{
  guint      repeat_min;
  guint      repeat_max;
  guint      n_alts;
  FwRuleAlt *alts;
} FwRuleElem;

struct _FwRuleSeq
{
  guint       n_elems;
  FwRuleElem *elems;
  guint       min_len;
  guint       max_len;       /* saturates at FW_RULE_MAX_NODES + 1 */
  guint       cost;          /* atom tests of one run at worst, saturates at FW_RULE_MAX_COST + 1 */
};

/* Compilation shares sub-patterns, matching does not: a tree of alternatives of alternatives is small to
 * store but slow to run, so its worst-case run is bounded too. */
#define FW_RULE_MAX_COST 2048

typedef struct
{
  FwRuleEntry     *entry;
  const FwRuleSeq *seq;
} FwRuleCompiled;

/* 128 positions: position p means "the next node to match is nodes[p]". */
typedef struct
{
  guint64 w[2];
} FwRuleMask;

#define FW_RULE_MASK_BITS 128

gboolean       fw_rule_seq_match_full  (const FwRuleSeq   *seq,
                                        FwNode * const    *nodes,
                                        guint              n_nodes);
/* Runs seq from every position set in starts over nodes[0..n_nodes) (n_nodes < 128); the end positions. */
FwRuleMask     fw_rule_seq_run         (const FwRuleSeq   *seq,
                                        FwNode * const    *nodes,
                                        guint              n_nodes,
                                        FwRuleMask         starts);
gboolean       fw_rule_when_holds      (const FwRuleEntry *entry,
                                        FwNode * const    *nodes,
                                        guint              start,
                                        guint              end);
/* As fw_rule_when_holds; when a condition does not hold, *unmet (when not NULL) says which and why,
 * translated: "bias dtype is float32, not float16". */
gboolean       fw_rule_when_check      (const FwRuleEntry *entry,
                                        FwNode * const    *nodes,
                                        guint              start,
                                        guint              end,
                                        char             **unmet);
gboolean       fw_rule_entry_has_when  (const FwRuleEntry *entry);
/* A contiguous run of nodes matching compiled (with its `when`). */
gboolean       fw_rule_forbid_matches  (const FwRuleCompiled *compiled,
                                        FwNode * const    *nodes,
                                        guint              n_nodes);
FwOpClass      fw_rule_node_class      (const FwNode      *node);

/* The compiled shipped rules (generated by glib-compile-resources). */
GResource     *fw_rules_get_resource   (void);

G_END_DECLS
