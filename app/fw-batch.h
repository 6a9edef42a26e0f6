/* fw-batch.h: headless batch mode. Never initialises GTK: it runs with no display and in a -Dgui=false
 * build. Exit codes are those of docs/design.md §8. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FW_EXIT_OK = 0,
  FW_EXIT_FAIL_ON = 1,   /* a --fail-on condition held */
  FW_EXIT_BAD_INPUT = 2, /* bad input or usage */
  FW_EXIT_INTERNAL = 3,  /* a bug of ours */
} FwExitCode;

typedef struct
{
  const char  *model_path;
  const char  *report_path;   /* NULL or "-": standard output */
  const char  *format;        /* "json" or "markdown"; NULL: from the report's extension */
  char       **binds;         /* NAME=VALUE */
  gint         max_nodes;
  gint         max_nesting;
  gint         max_alloc_mb;  /* 0: 2048 */
  const char  *profile;       /* builtin name or file; NULL: ascend-910b */
  char       **rules;         /* extra rule files or folders, after the shipped ones */
  const char  *strategy;      /* NULL: AUTOFUSION_STRATEGY or balanced */
  gint         fusion_depth;  /* 0: AUTOFUSION_MAX_DEPTH or 32 */
  gint         max_fusion_size; /* 0: the profile's */
  char       **whitelists;    /* *.fusion.yaml files applied in order after planning */
  char       **ops;           /* operator registries (--ops), after the preferences' `ops` */
  const char  *export_whitelist; /* write the plan's final state as a whitelist, or NULL */
  char       **fail_on;       /* comma lists: mismatch, regression, rejected-whitelist */
  char       **targets;       /* "host", "ascend" (repeatable, comma lists allowed) */
  gboolean     verify;        /* run fused against unfused on seeded inputs (implies the host target) */
  gboolean     measure;       /* time kernels and the whole model (implies the host target) */
  const char  *export_dir;    /* fused model, whitelist and kernel package go here, or NULL */
  const char  *tolerance;     /* "rel=…,abs=…" overriding the dtype defaults, or NULL */
  const char  *verify_policy; /* "strict" or "golden", or NULL: golden for half-precision models */
  gint64       seed;          /* inputs for --verify and --measure */
  gint         repeats;       /* --measure samples, 0: 5 */
  gint         threads;       /* 0: all cores */
  const char  *kernel_cache;  /* NULL: $XDG_CACHE_HOME/fusion-workbench/kernels */
  const char  *render;        /* draw the laid-out graph with the plan's hulls to FILE.svg or FILE.png */
  const char  *roofline;      /* draw the candidates' roofline to FILE.svg or FILE.png */
  const char  *summary;       /* draw the kernels/traffic/time summary to FILE.svg or FILE.png */
  const char  *dump_graph;    /* graph dumps into DIR (NULL: DUMP_GRAPH and DUMP_GRAPH_PATH decide) */
  const char  *model_explorer; /* write Model Explorer's graph and node data JSON into DIR, or NULL */
  const char  *superkernel;   /* "auto" or "off"; NULL: off unless scopes are given */
  char       **superkernel_scopes; /* name-scope prefixes, each a SuperKernel scope */
  char       **no_superkernel; /* name-scope prefixes kept out of every scope */
  gint         superkernel_max_kernels; /* 0: 64 */
} FwBatchOptions;

int fw_batch_run (const FwBatchOptions *options);

G_END_DECLS
