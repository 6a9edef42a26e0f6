/* fw-ascend-superkernel.c: one SuperKernel scope → sk_NNN.cpp, its tiling header, CMake project and README
 * (fw-ascend-superkernel.h, docs/superkernel.md).
 *
 * The barriers follow CANN's SuperKernel generator (graph-autofusion super_kernel/src/superkernel/
 * super_kernel.py, get_sync_code_by_kernel_type): a mixed scope synchronises every core (SyncAll<false>), a
 * vector-only boundary the vector cores (CANN: ffts_cross_core_sync(PIPE_MTE3, SYNC_AIV_ONLY_ALL); in the
 * documented API SyncAll<true>, SyncAll.md hard-sync prototype), a cube-only one the cube cores (CANN:
 * ffts_cross_core_sync(PIPE_FIX, SYNC_AIC_FLAG); documented: CrossCoreSetFlag<0x0, PIPE_FIX> then
 * CrossCoreWaitFlag on AIC, CrossCoreSetFlag(ISASI).md mode 0). Between sub-kernels every pipe drains
 * (PipeBarrier<PIPE_ALL>, as CANN inserts between sub-operators without a barrier). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-ascend-superkernel.h"
#include "fw-error.h"
#include "plan/fw-plan-private.h"

/* The flag a cube-only barrier uses: the top of the 0-10 range, away from the low ids the Matmul API takes
 * (CrossCoreSetFlag(ISASI).md warns they collide). */
#define CUBE_FLAG 10
/* A stand-in's tiling per output: bytes, cores, bytes per core. */
#define STAND_IN_FIELDS 3

typedef struct
{
  const FwSkKernel *k;
  FwAscendKernel   *kernel;    /* generated, or NULL: a stand-in */
  GPtrArray        *reads;     /* FwValue*: a stand-in's inputs the scope wrote before it */
  GPtrArray        *writes;    /* FwValue*: what it writes */
  guint             blocks;
  guint             tiling_at; /* index of its first field in the scope's tiling */
} Sub;

struct _FwAscendScope
{
  FwKernelSource *source;
  GArray         *tiling;     /* guint64 */
  guint           blocks;
  guint           n_barriers;
  guint           n_stand_ins;
  GPtrArray      *mixed;      /* FwAscendKernel*, borrowed */
};

typedef struct
{
  FwPlan          *plan;
  const FwSkScope *scope;
  char            *name;       /* "sk_003" */
  char            *struct_name;
  GArray          *subs;       /* Sub */
  GPtrArray       *inputs;     /* FwValue*: read from outside the scope */
  GPtrArray       *results;    /* FwValue*: the stand-ins' results */
  GPtrArray       *outputs;    /* FwValue*: written inside */
  GHashTable      *input_at;   /* FwValue* → index + 1 in inputs */
  GHashTable      *output_at;  /* FwValue* → index + 1 in outputs */
  GHashTable      *result_at;  /* FwValue* → index + 1 in results */
  GArray          *tiling;     /* guint64 */
  guint            n_barriers;
} Gen;

static void
sub_clear (gpointer data)
{
  Sub *s = data;

  g_clear_pointer (&s->reads, g_ptr_array_unref);
  g_clear_pointer (&s->writes, g_ptr_array_unref);
}

static gint64
value_bytes (const FwValue *v)
{
  gint64 bytes = 0;

  return fw_dtype_bytes_for (v->dtype, fw_value_get_n_elements (v), &bytes) ? bytes : 0;
}

static void
add_output (Gen *g, FwValue *v)
{
  if (g_hash_table_contains (g->output_at, v))
    return;
  g_ptr_array_add (g->outputs, v);
  g_hash_table_insert (g->output_at, v, GUINT_TO_POINTER (g->outputs->len));
}

/* A value a generated sub-kernel reads: written earlier in the scope, or an input of the scope. */
static void
add_read (Gen *g, FwValue *v)
{
  if (g_hash_table_contains (g->output_at, v) || g_hash_table_contains (g->input_at, v))
    return;
  g_ptr_array_add (g->inputs, v);
  g_hash_table_insert (g->input_at, v, GUINT_TO_POINTER (g->inputs->len));
}

static gboolean
in_nodes (GPtrArray *nodes, const FwNode *node)
{
  return node != NULL && nodes != NULL && g_ptr_array_find (nodes, node, NULL);
}

/* What CANN's own kernel at k reads and writes: a single op's inputs and outputs, or a fused group's boundary
 * where the target made no kernel of it. */
static void
describe_stand_in (Gen *g, Sub *s)
{
  const FwSkKernel *k = s->k;
  FwCandidate *group = k->candidate != G_MAXUINT ? g_ptr_array_index (g->plan->candidates, k->candidate) : NULL;
  GPtrArray *nodes = group ? group->nodes : NULL;
  guint n = group ? nodes->len : 1;

  for (guint i = 0; i < n; i++)
    {
      FwNode *node = group ? g_ptr_array_index (nodes, i) : k->node;

      for (guint j = 0; j < node->n_inputs; j++)
        {
          FwValue *v = node->inputs[j];

          if (v != NULL && !in_nodes (nodes, v->producer) && g_hash_table_contains (g->output_at, v) &&
              !g_ptr_array_find (s->reads, v, NULL))
            g_ptr_array_add (s->reads, v);
        }
      for (guint o = 0; o < node->n_outputs; o++)
        {
          FwValue *v = node->outputs[o];

          if (v == NULL || value_bytes (v) == 0 ||
              (group != NULL && group->spec != NULL && !fw_kernel_spec_is_output (group->spec, v)))
            continue;
          g_ptr_array_add (s->writes, v);
        }
    }
}

static void
collect (Gen *g, FwAscendKernelLookup lookup, gpointer data)
{
  for (guint i = 0; i < g->scope->kernels->len; i++)
    {
      Sub s = { &g_array_index (g->scope->kernels, FwSkKernel, i), NULL, g_ptr_array_new (), g_ptr_array_new (), 0, 0 };

      s.tiling_at = g->tiling->len;
      /* The cube operator before an epilogue is the group's root: CANN's, whatever the group's kernel is. */
      if (s.k->candidate != G_MAXUINT && lookup != NULL)
        s.kernel = lookup (s.k->candidate, data);
      /* A kernel without a sub-kernel body (an integer kernel: its GM workspace has no place in the scope's
       * arguments yet) stands in as CANN's own operators do; its arithmetic is checked by its own twin run. */
      if (s.kernel != NULL && fw_ascend_kernel_get_body (s.kernel) == NULL)
        s.kernel = NULL;
      if (s.kernel != NULL)
        {
          const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (s.kernel);
          const FwAscendTiling *t = fw_ascend_kernel_get_tiling (s.kernel);
          guint64 base[7] = { (guint64) t->total_length, (guint64) t->tile_length, (guint64) t->tile_num,
                              (guint64) t->rows, (guint64) t->row_length, (guint64) t->block_num,
                              (guint64) t->tiles_per_block };

          for (guint j = 0; j < fw_kernel_source_get_n_inputs (src); j++)
            add_read (g, fw_kernel_source_get_input (src, j));
          for (guint j = 0; j < fw_kernel_source_get_n_outputs (src); j++)
            {
              g_ptr_array_add (s.writes, fw_kernel_source_get_output (src, j));
              add_output (g, fw_kernel_source_get_output (src, j));
            }
          s.blocks = (guint) MAX (t->block_num, 1);
          g_array_append_vals (g->tiling, base, 7);
          g_array_append_vals (g->tiling, t->cube, t->n_cube);
        }
      else
        {
          describe_stand_in (g, &s);
          s.blocks = MAX (s.k->cores, 1u);
          for (guint j = 0; j < s.writes->len; j++)
            {
              FwValue *v = g_ptr_array_index (s.writes, j);
              guint64 bytes = (guint64) value_bytes (v);
              guint64 share = (bytes + s.blocks - 1) / s.blocks;
              guint64 f[STAND_IN_FIELDS] = { bytes, s.blocks, (share + 31) / 32 * 32 };

              g_array_append_vals (g->tiling, f, STAND_IN_FIELDS);
              add_output (g, v);
              g_ptr_array_add (g->results, v);
              g_hash_table_insert (g->result_at, v, GUINT_TO_POINTER (g->results->len));
            }
        }
      g_array_append_val (g->subs, s);
    }
}

/* The GM argument a value is: inputs, then the stand-ins' results, then outputs. */
static guint
arg_of (Gen *g, const FwValue *v)
{
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (g->output_at, v));

  if (at != 0)
    return g->inputs->len + g->results->len + at - 1;
  return GPOINTER_TO_UINT (g_hash_table_lookup (g->input_at, v)) - 1;
}

static guint
result_arg (Gen *g, const FwValue *v)
{
  return g->inputs->len + GPOINTER_TO_UINT (g_hash_table_lookup (g->result_at, v)) - 1;
}

static char *
value_comment (const FwValue *v)
{
  g_autofree char *name = fw_ascend_escape_comment (fw_value_get_name (v));
  g_autofree char *shape = fw_value_format_shape (v);

  return g_strdup_printf ("%s %s %s", name, fw_dtype_name (v->dtype), shape);
}

static char *
sub_label (const Sub *s)
{
  g_autofree char *node = fw_ascend_escape_comment (s->k->node->name);
  g_autofree char *op = fw_ascend_escape_comment (s->k->node->op_type);

  if (s->kernel != NULL)
    return g_strdup_printf ("%s (%s %s…, %s)", fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (s->kernel)),
                            op, node, fw_sk_core_type_name (s->k->type));
  return g_strdup_printf ("CANN's %s %s (stand-in, %s)", op, node, fw_sk_core_type_name (s->k->type));
}

static guint
scope_blocks (Gen *g)
{
  guint n = 1;

  for (guint i = 0; i < g->subs->len; i++)
    n = MAX (n, g_array_index (g->subs, Sub, i).blocks);
  return n;
}

static void
append_header (Gen *g, GString *s, const char *what)
{
  g_autofree char *scope = fw_ascend_escape_comment (g->scope->name);

  g_string_append_printf (s, "/* %s: %s of SuperKernel scope %s, generated by Fusion Workbench.\n"
                             " * %u sub-kernels on %u cores, %u barriers kept, %u removed (docs/superkernel.md). */\n",
                          g->name, what, scope, g->subs->len, scope_blocks (g), g->scope->syncs_kept,
                          g->scope->syncs_removed);
}

/* The tiling header: every generated sub-kernel's own header, then the scope's struct of all of them. */
static char *
gen_tiling_header (Gen *g)
{
  GString *s = g_string_new (NULL);
  g_autofree char *upper = g_ascii_strup (g->name, -1);

  append_header (g, s, "tiling data");
  g_string_append_printf (s, "#ifndef %s_TILING_H\n#define %s_TILING_H\n\n#include <cstdint>\n\n", upper, upper);
  for (guint i = 0; i < g->subs->len; i++)
    {
      Sub *sub = &g_array_index (g->subs, Sub, i);
      const FwKernelSource *src;
      g_autofree char *file = NULL;

      if (sub->kernel == NULL)
        continue;
      src = fw_ascend_kernel_get_kernel_source (sub->kernel);
      file = g_strdup_printf ("%s_tiling.h", fw_kernel_source_get_name (src));
      /* Several sub-kernels can be one group's kernel only once: the header guards itself. */
      g_string_append_printf (s, "/* ---- %s ---- */\n%s\n", file, fw_kernel_source_lookup_file (src, file));
    }
  g_string_append (s, "/* A stand-in for CANN's own operator, per output it writes. */\n"
                      "#ifndef FW_SK_STAND_IN_TILING\n#define FW_SK_STAND_IN_TILING\n"
                      "struct FwSkStandInTiling\n{\n"
                      "  uint64_t bytes;     /* of the output */\n"
                      "  uint64_t blockNum;  /* cores the operator runs on */\n"
                      "  uint64_t share;     /* bytes per core, a multiple of 32 */\n};\n#endif\n\n");
  g_string_append_printf (s, "/* Every sub-kernel's tiling in execution order, filled on the host by each one's own tiling\n"
                             " * function (kNNN/NAME_tiling.cpp) and passed as the entry's last argument. */\n"
                             "struct %s\n{\n", g->struct_name);
  for (guint i = 0; i < g->subs->len; i++)
    {
      Sub *sub = &g_array_index (g->subs, Sub, i);
      g_autofree char *label = sub_label (sub);

      if (sub->kernel != NULL)
        g_string_append_printf (s, "  FwK%03uTiling k%u;  /* %s */\n", sub->k->candidate, i, label);
      else
        for (guint j = 0; j < sub->writes->len; j++)
          g_string_append_printf (s, "  FwSkStandInTiling k%u_%u;  /* %s */\n", i, j, label);
    }
  g_string_append_printf (s, "};\n\n#endif  /* %s_TILING_H */\n", upper);
  return g_string_free (s, FALSE);
}

/* CANN's own kernels stand in as this: what the barriers around an operator depend on, its reads and its
 * writes, block by block through a UB buffer. */
static const char stand_in_code[] =
  "/* ---- stand-ins for CANN's own operators ----\n"
  " * On the chip CANN's SuperKernel compile binds each operator's compiled kernel here (super_kernel.py links the\n"
  " * sub-kernels' objects). This file has none of them: a stand-in reads, on every core of the operator, each\n"
  " * input the scope wrote before it, and writes its core's share of the result, which the host passes in\n"
  " * (`result`), so the barriers around it are those the operator needs. */\n"
  "namespace fw_sk_stand_in {\n\n"
  "constexpr uint32_t CHUNK = 16384;  /* bytes per copy through the Unified Buffer */\n\n"
  "__aicore__ inline void Copy(AscendC::TPipe &pipe, const AscendC::LocalTensor<uint8_t> &ub,\n"
  "                            const AscendC::GlobalTensor<uint8_t> &src, const AscendC::GlobalTensor<uint8_t> *dst,\n"
  "                            uint64_t bytes)\n{\n"
  "  for (uint64_t off = 0; off < bytes; off += CHUNK) {\n"
  "    uint32_t n = static_cast<uint32_t>(bytes - off < CHUNK ? bytes - off : CHUNK);\n"
  "    AscendC::DataCopyExtParams params(1, n, 0, 0, 0);\n"
  "    AscendC::DataCopyPadExtParams<uint8_t> pad(false, 0, 0, 0);\n"
  "    AscendC::DataCopyPad(ub, src[off], params, pad);\n"
  "    AscendC::TEventID in = pipe.FetchEventID(AscendC::HardEvent::MTE2_MTE3);\n"
  "    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(in);\n"
  "    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(in);\n"
  "    if (dst != nullptr) {\n"
  "      AscendC::DataCopyPad((*dst)[off], ub, params);\n"
  "    }\n"
  "    AscendC::TEventID out = pipe.FetchEventID(AscendC::HardEvent::MTE3_MTE2);\n"
  "    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(out);\n"
  "    AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(out);\n"
  "  }\n}\n\n"
  "/* Every core reads all of an input another sub-kernel wrote. */\n"
  "__aicore__ inline void Read(GM_ADDR input, uint64_t bytes)\n{\n"
  "  AscendC::TPipe pipe;\n"
  "  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;\n"
  "  pipe.InitBuffer(buf, CHUNK);\n"
  "  AscendC::GlobalTensor<uint8_t> src;\n"
  "  src.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t *>(input), bytes);\n"
  "  Copy(pipe, buf.Get<uint8_t>(), src, nullptr, bytes);\n}\n\n"
  "/* This core's share of the output: result's bytes [share * core, share * (core + 1)). */\n"
  "__aicore__ inline void Write(GM_ADDR output, GM_ADDR result, GM_ADDR tiling)\n{\n"
  "  const __gm__ FwSkStandInTiling *t = reinterpret_cast<const __gm__ FwSkStandInTiling *>(tiling);\n"
  "  uint64_t first = static_cast<uint64_t>(AscendC::GetBlockIdx()) * t->share;\n"
  "  if (first >= t->bytes) {\n"
  "    return;\n"
  "  }\n"
  "  uint64_t bytes = t->bytes - first < t->share ? t->bytes - first : t->share;\n"
  "  AscendC::TPipe pipe;\n"
  "  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;\n"
  "  pipe.InitBuffer(buf, CHUNK);\n"
  "  AscendC::GlobalTensor<uint8_t> src, dst;\n"
  "  src.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t *>(result) + first, bytes);\n"
  "  dst.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t *>(output) + first, bytes);\n"
  "  Copy(pipe, buf.Get<uint8_t>(), src, &dst, bytes);\n}\n\n"
  "}  // namespace fw_sk_stand_in\n\n";

/* The barrier before sub-kernel i, narrowed as the plan decided. */
static void
append_barrier (Gen *g, GString *s, guint i)
{
  const Sub *sub = &g_array_index (g->subs, Sub, i);
  g_autofree char *value = sub->k->sync_value ? fw_ascend_escape_comment (fw_value_get_name (sub->k->sync_value))
                                              : g_strdup ("?");

  if (sub->k->sync == FW_SK_SYNC_NONE)
    {
      g_string_append (s, "  /* no barrier: each core reads only what it wrote itself */\n");
      return;
    }
  g_string_append_printf (s, "  /* barrier %u (%s cores): sub-kernel %u reads %s, which other cores wrote */\n",
                          ++g->n_barriers, fw_sk_sync_name (sub->k->sync), i, value);
  switch (sub->k->sync)
    {
    case FW_SK_SYNC_VECTOR:
      g_string_append (s, "  if ASCEND_IS_AIV {\n    AscendC::SyncAll<true>();\n  }\n");
      break;
    case FW_SK_SYNC_CUBE:
      g_string_append_printf (s, "  if ASCEND_IS_AIC {\n    AscendC::CrossCoreSetFlag<0x0, PIPE_FIX>(%d);\n"
                                 "    AscendC::CrossCoreWaitFlag(%d);\n  }\n", CUBE_FLAG, CUBE_FLAG);
      break;
    case FW_SK_SYNC_ALL:
    case FW_SK_SYNC_NONE:
    default:
      g_string_append (s, "  AscendC::SyncAll<false>();\n");
      break;
    }
}

static void
append_call (Gen *g, GString *s, guint i)
{
  Sub *sub = &g_array_index (g->subs, Sub, i);
  g_autofree char *label = sub_label (sub);
  guint blocks = scope_blocks (g);

  g_string_append_printf (s, "  /* sub-kernel %u: %s, on %u of %u cores */\n", i, label, sub->blocks, blocks);
  g_string_append_printf (s, sub->blocks < blocks ? "  if (core < %uu) {\n" : "  {\n", sub->blocks);
  if (sub->kernel != NULL)
    {
      const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (sub->kernel);

      g_string_append_printf (s, "    %s::Run(", fw_kernel_source_get_name (src));
      for (guint j = 0; j < fw_kernel_source_get_n_inputs (src); j++)
        g_string_append_printf (s, "gm%u, ", arg_of (g, fw_kernel_source_get_input (src, j)));
      for (guint j = 0; j < fw_kernel_source_get_n_outputs (src); j++)
        g_string_append_printf (s, "gm%u, ", arg_of (g, fw_kernel_source_get_output (src, j)));
      g_string_append_printf (s, "tiling + offsetof(%s, k%u));\n", g->struct_name, i);
    }
  else
    {
      for (guint j = 0; j < sub->reads->len; j++)
        {
          FwValue *v = g_ptr_array_index (sub->reads, j);
          g_string_append_printf (s, "    fw_sk_stand_in::Read(gm%u, %" G_GINT64_FORMAT "u);\n", arg_of (g, v),
                                  value_bytes (v));
        }
      for (guint j = 0; j < sub->writes->len; j++)
        {
          FwValue *v = g_ptr_array_index (sub->writes, j);
          g_string_append_printf (s, "    fw_sk_stand_in::Write(gm%u, gm%u, tiling + offsetof(%s, k%u_%u));\n",
                                  arg_of (g, v), result_arg (g, v), g->struct_name, i, j);
        }
    }
  g_string_append (s, "  }\n  AscendC::PipeBarrier<PIPE_ALL>();\n");
}

static guint
count_stand_ins (Gen *g)
{
  guint n = 0;

  for (guint i = 0; i < g->subs->len; i++)
    n += g_array_index (g->subs, Sub, i).kernel == NULL;
  return n;
}

static gboolean
any_cube (Gen *g)
{
  for (guint i = 0; i < g->subs->len; i++)
    {
      Sub *sub = &g_array_index (g->subs, Sub, i);
      if (sub->kernel != NULL && fw_ascend_kernel_get_tiling (sub->kernel)->n_cube > 0)
        return TRUE;
    }
  return FALSE;
}

static char *
gen_kernel (Gen *g)
{
  GString *s = g_string_new (NULL);
  guint n_args = g->inputs->len + g->results->len + g->outputs->len;
  GHashTable *done = g_hash_table_new (NULL, NULL);

  append_header (g, s, "Ascend C SuperKernel");
  g_string_append_printf (s, "#include <cstddef>\n\n#include \"kernel_operator.h\"\n%s#include \"%s_tiling.h\"\n\n",
                          any_cube (g) ? "#include \"lib/matmul_intf.h\"\n" : "", g->name);
  for (guint i = 0; i < g->subs->len; i++)
    {
      Sub *sub = &g_array_index (g->subs, Sub, i);

      if (sub->kernel != NULL && g_hash_table_add (done, sub->kernel))
        g_string_append_printf (s, "%s\n", fw_ascend_kernel_get_body (sub->kernel));
    }
  g_hash_table_unref (done);
  g_string_append (s, stand_in_code);
  g_string_append (s, "/* The arguments:\n");
  for (guint i = 0; i < n_args; i++)
    {
      FwValue *v = i < g->inputs->len ? g_ptr_array_index (g->inputs, i)
                 : i < g->inputs->len + g->results->len ? g_ptr_array_index (g->results, i - g->inputs->len)
                 : g_ptr_array_index (g->outputs, i - g->inputs->len - g->results->len);
      g_autofree char *what = value_comment (v);
      const char *kind = i < g->inputs->len ? "input" : i < g->inputs->len + g->results->len ? "stand-in result"
                                                                                              : "written here";

      g_string_append_printf (s, " *   gm%u  %s: %s\n", i, kind, what);
    }
  g_string_append_printf (s, " * then the tiling (%s). Every core runs every barrier, also where its sub-kernel runs on\n"
                             " * fewer cores than the scope (CANN's feed-sync-all): none waits for a core that never comes. */\n"
                             "extern \"C\" __global__ __aicore__ void %s(", g->struct_name, g->name);
  for (guint i = 0; i < n_args; i++)
    g_string_append_printf (s, "GM_ADDR gm%u, ", i);
  g_string_append (s, "GM_ADDR tiling)\n{\n  const uint32_t core = static_cast<uint32_t>(AscendC::GetBlockIdx());\n\n");
  for (guint i = 0; i < g->subs->len; i++)
    {
      if (i > 0)
        append_barrier (g, s, i);
      append_call (g, s, i);
    }
  g_string_append (s, "  (void) core;\n}\n");
  return g_string_free (s, FALSE);
}

static char *
gen_cmake (Gen *g)
{
  g_autofree char *preamble = fw_ascend_cmake_preamble (g->name, "SuperKernel");

  return g_strdup_printf (
    "%s"
    "# One launch: every sub-kernel's body is in %s.cpp.\n"
    "ascendc_library(%s_kernels SHARED %s.cpp)\n"
    "target_include_directories(%s_kernels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})\n\n"
    "install(TARGETS %s_kernels LIBRARY DESTINATION lib)\n"
    "install(FILES %s_tiling.h DESTINATION include)\n",
    preamble, g->name, g->name, g->name, g->name, g->name, g->name);
}

static char *
gen_readme (Gen *g)
{
  GString *s = g_string_new (NULL);
  g_autofree char *scope = fw_ascend_escape_comment (g->scope->name);

  g_string_append_printf (s, "# %s: SuperKernel scope %s\n\n"
                             "One launch of %u cores runs the scope's %u kernels in turn, each as a function (`NAME::Run`),\n"
                             "on its own cores; between them the barriers the plan kept (%u; %u boundaries need none, as\n"
                             "every core reads only what it wrote itself). Every core takes part in every barrier, also\n"
                             "where its sub-kernel runs on fewer cores, so that no barrier waits for a core that never\n"
                             "comes (CANN's `feed-sync-all`). Generated by Fusion Workbench; see docs/superkernel.md.\n\n"
                             "| # | sub-kernel | cores | barrier before |\n|---|---|---|---|\n",
                          g->name, scope, scope_blocks (g), g->subs->len, g->scope->syncs_kept, g->scope->syncs_removed);
  for (guint i = 0; i < g->subs->len; i++)
    {
      Sub *sub = &g_array_index (g->subs, Sub, i);
      g_autofree char *label = sub_label (sub);

      g_string_append_printf (s, "| %u | %s | %u | %s |\n", i, label, sub->blocks,
                              i == 0 ? "—" : fw_sk_sync_name (sub->k->sync));
    }
  g_string_append_printf (s, "\n## Barriers\n\n"
                             "As CANN's SuperKernel narrows them by kernel type: `all` is `AscendC::SyncAll<false>()` (cube\n"
                             "and vector cores), `vector` is `AscendC::SyncAll<true>()` (the vector cores only), `cube` is\n"
                             "`CrossCoreSetFlag<0x0, PIPE_FIX>(%d)` then `CrossCoreWaitFlag(%d)` on the cube cores.\n"
                             "`PipeBarrier<PIPE_ALL>()` drains every pipe after each sub-kernel.\n\n"
                             "## Stand-ins\n\n"
                             "%u of the sub-kernels are CANN's own operators (single operators, or the cube operator before a\n"
                             "fused epilogue). This source cannot hold their kernels: on the chip CANN's SuperKernel compile\n"
                             "binds their compiled kernels in. `fw_sk_stand_in` takes their place so that the scope runs on\n"
                             "Fusion Workbench's Ascend C twin: each core of the operator reads every input the scope wrote\n"
                             "before it and copies its share of the result the host passes in (a `stand-in result` argument).\n\n"
                             "## Tiling\n\n"
                             "`%s` (in `%s_tiling.h`) holds every sub-kernel's tiling in execution order: a generated\n"
                             "kernel's is its own struct, filled by its tiling function (`kNNN/fw_kNNN_tiling.cpp` of the\n"
                             "kernel package); a stand-in's is the bytes of its output, its cores and the bytes per core.\n\n"
                             "## Build\n\n```sh\ncmake -B build -DSOC_VERSION=Ascend910B1 -DASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH\n"
                             "cmake --build build\n```\n\n"
                             "Nothing here has been built with the CANN toolchain; on Fusion Workbench's twin the scope runs\n"
                             "with its blocks at once, one thread each, where a missing barrier shows as a race\n"
                             "(`FW-TWIN-SYNC-RACE`) and a barrier some cores never reach as a hang (`FW-TWIN-SYNC-HANG`).\n",
                          CUBE_FLAG, CUBE_FLAG, count_stand_ins (g), g->struct_name,
                          g->name);
  return g_string_free (s, FALSE);
}

static void
gen_clear (Gen *g)
{
  g_free (g->name);
  g_free (g->struct_name);
  g_array_unref (g->subs);
  g_ptr_array_unref (g->inputs);
  g_ptr_array_unref (g->results);
  g_ptr_array_unref (g->outputs);
  g_hash_table_unref (g->input_at);
  g_hash_table_unref (g->output_at);
  g_hash_table_unref (g->result_at);
  if (g->tiling != NULL)
    g_array_unref (g->tiling);
}

FwAscendScope *
fw_ascend_scope_generate (FwPlan *plan, const FwSkPlan *sk, guint index, FwAscendKernelLookup lookup, gpointer data,
                          GError **error)
{
  Gen g = { 0 };
  FwAscendScope *scope;

  g_return_val_if_fail (plan != NULL && sk != NULL, NULL);
  if (index >= sk->scopes->len)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("Ascend target: there is no SuperKernel scope %u"), index);
      return NULL;
    }
  g.plan = plan;
  g.scope = g_ptr_array_index (sk->scopes, index);
  g.name = g_strdup_printf ("sk_%03u", index);
  g.struct_name = g_strdup_printf ("Sk%03uTiling", index);
  g.subs = g_array_new (FALSE, TRUE, sizeof (Sub));
  g_array_set_clear_func (g.subs, sub_clear);
  g.inputs = g_ptr_array_new ();
  g.results = g_ptr_array_new ();
  g.outputs = g_ptr_array_new ();
  g.input_at = g_hash_table_new (NULL, NULL);
  g.output_at = g_hash_table_new (NULL, NULL);
  g.result_at = g_hash_table_new (NULL, NULL);
  g.tiling = g_array_new (FALSE, FALSE, sizeof (guint64));
  collect (&g, lookup, data);

  scope = g_new0 (FwAscendScope, 1);
  scope->source = fw_kernel_source_new ("ascend", g.name);
  scope->mixed = g_ptr_array_new ();
  for (guint i = 0; i < g.inputs->len; i++)
    fw_kernel_source_add_input (scope->source, g_ptr_array_index (g.inputs, i));
  for (guint i = 0; i < g.results->len; i++)
    fw_kernel_source_add_input (scope->source, g_ptr_array_index (g.results, i));
  for (guint i = 0; i < g.outputs->len; i++)
    fw_kernel_source_add_output (scope->source, g_ptr_array_index (g.outputs, i));
  fw_kernel_source_take_file (scope->source, g_strdup_printf ("%s.cpp", g.name), gen_kernel (&g));
  fw_kernel_source_take_file (scope->source, g_strdup_printf ("%s_tiling.h", g.name), gen_tiling_header (&g));
  fw_kernel_source_take_file (scope->source, g_strdup ("CMakeLists.txt"), gen_cmake (&g));
  fw_kernel_source_take_file (scope->source, g_strdup ("README.md"), gen_readme (&g));
  scope->blocks = scope_blocks (&g);
  scope->n_barriers = g.n_barriers;
  scope->n_stand_ins = count_stand_ins (&g);
  for (guint i = 0; i < g.subs->len; i++)
    {
      Sub *sub = &g_array_index (g.subs, Sub, i);
      if (sub->kernel != NULL && fw_ascend_kernel_get_tiling (sub->kernel)->n_cube > 0)
        g_ptr_array_add (scope->mixed, sub->kernel);
    }
  scope->tiling = g_steal_pointer (&g.tiling);
  gen_clear (&g);
  return scope;
}

void
fw_ascend_scope_free (FwAscendScope *scope)
{
  if (scope == NULL)
    return;
  fw_kernel_source_free (scope->source);
  g_array_unref (scope->tiling);
  g_ptr_array_unref (scope->mixed);
  g_free (scope);
}

const FwKernelSource *
fw_ascend_scope_get_kernel_source (FwAscendScope *scope)
{
  return scope->source;
}

const guint64 *
fw_ascend_scope_get_tiling (FwAscendScope *scope, guint *n)
{
  *n = scope->tiling->len;
  return (const guint64 *) scope->tiling->data;
}

guint
fw_ascend_scope_get_blocks (FwAscendScope *scope)
{
  return scope->blocks;
}

guint
fw_ascend_scope_get_n_barriers (FwAscendScope *scope)
{
  return scope->n_barriers;
}

guint
fw_ascend_scope_get_n_stand_ins (FwAscendScope *scope)
{
  return scope->n_stand_ins;
}

gdouble
fw_ascend_scope_product_tolerance (FwAscendScope *scope, GHashTable *values)
{
  gdouble worst = 0;

  for (guint i = 0; i < scope->mixed->len; i++)
    {
      FwAscendKernel *k = g_ptr_array_index (scope->mixed, i);
      const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (k);
      FwArray *ins[2] = { NULL, NULL };

      if (fw_kernel_source_get_n_inputs (src) < 2)
        continue;
      for (guint j = 0; j < 2; j++)
        ins[j] = g_hash_table_lookup (values, fw_kernel_source_get_input (src, j));
      if (ins[0] != NULL && ins[1] != NULL)
        worst = MAX (worst, fw_ascend_kernel_product_tolerance (k, ins));
    }
  return worst;
}
