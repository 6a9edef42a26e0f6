/* twin_matmul.cpp: the parts of the twin's Matmul API (lib/matmul_intf.h) that do not depend on the element
 * types: a TCubeTiling checked against its page and the profile's cube buffers, and the block product, the
 * float arithmetic every mixed kernel spends most of its run in. */
#include <cstring>

#include "lib/matmul_intf.h"

namespace matmul {
namespace twin {

namespace {

int
CeilDiv (int a, int b)
{
  return (a + b - 1) / b;
}

}  // namespace

bool
CheckTiling (const TCubeTiling &t, unsigned a_bytes, unsigned b_bytes, unsigned bias_bytes, const char *file, int line)
{
  using fwtwin::Diag;
  using fwtwin::g;
  bool ok = true;
  /* TCubeTiling结构体.md: every shape, base, depth and step "取值必须大于0". */
  const int positive[] = { t.M, t.N, t.Ka, t.Kb, t.singleCoreM, t.singleCoreN, t.singleCoreK, t.baseM, t.baseN,
                           t.baseK, t.depthA1, t.depthB1, t.stepM, t.stepN, t.stepKa, t.stepKb };
  for (int v : positive)
    if (v <= 0)
      {
        Diag ("FW-TWIN-MATMUL-TILING", file, line, "TCubeTiling has a shape, base, depth or step of %d (must be > 0)", v);
        return false;
      }
  if (t.Ka != t.Kb)
    {
      Diag ("FW-TWIN-MATMUL-TILING", file, line, "TCubeTiling Ka %d differs from Kb %d", t.Ka, t.Kb);
      ok = false;
    }
  /* singleCoreK = K (K is not split across cores); singleCoreM <= M; singleCoreN <= N. */
  if (t.singleCoreK != t.Ka || t.singleCoreM > t.M || t.singleCoreN > t.N)
    {
      Diag ("FW-TWIN-MATMUL-TILING", file, line,
            "TCubeTiling singleCore %d x %d x %d does not fit M %d, N %d with singleCoreK = K %d", t.singleCoreM,
            t.singleCoreN, t.singleCoreK, t.M, t.N, t.Ka);
      ok = false;
    }
  /* usedCoreNum = (M / singleCoreM) * (N / singleCoreN), whole cores. */
  if (t.usedCoreNum != CeilDiv (t.M, t.singleCoreM) * CeilDiv (t.N, t.singleCoreN))
    {
      Diag ("FW-TWIN-MATMUL-TILING", file, line, "TCubeTiling usedCoreNum %d is not ceil(M / singleCoreM) x ceil(N / singleCoreN) = %d",
            t.usedCoreNum, CeilDiv (t.M, t.singleCoreM) * CeilDiv (t.N, t.singleCoreN));
      ok = false;
    }
  /* baseM/N/K "按分形对齐" (Mmad.md: fractals of 16 rows by C0 = 32 bytes of elements). */
  unsigned c0 = 32 / (a_bytes ? a_bytes : 1);
  if (t.baseM % 16 != 0 || t.baseN % 16 != 0 || static_cast<unsigned> (t.baseK) % c0 != 0)
    {
      Diag ("FW-TWIN-MATMUL-TILING", file, line,
            "TCubeTiling base %d x %d x %d is not fractal-aligned (baseM, baseN multiples of 16, baseK of %u)", t.baseM,
            t.baseN, t.baseK, c0);
      ok = false;
    }
  if ((t.iterateOrder != 0 && t.iterateOrder != 1) || (t.isBias != 0 && t.isBias != 1) || t.dbL0A < 1 ||
      t.dbL0A > 2 || t.dbL0B < 1 || t.dbL0B > 2 || t.dbL0C < 1 || t.dbL0C > 2)
    {
      Diag ("FW-TWIN-MATMUL-TILING", file, line,
            "TCubeTiling iterateOrder %d, isBias %d or dbL0A/B/C %d/%d/%d outside the values the page allows",
            t.iterateOrder, t.isBias, t.dbL0A, t.dbL0B, t.dbL0C);
      ok = false;
    }
  /* depthA1 counts the baseM x baseK blocks A1 holds, stepM x stepKa the blocks of its buffer (depthB1,
   * stepN x stepKb for B1): the buffer cannot hold fewer blocks than it spans (asc-devkit's matmul_preload
   * sample: depthA1 = stepM * stepKa, twice that double-buffered). */
  if (t.depthA1 < t.stepM * t.stepKa || t.depthB1 < t.stepN * t.stepKb)
    {
      Diag ("FW-TWIN-MATMUL-TILING", file, line,
            "TCubeTiling depthA1 %d / depthB1 %d hold fewer blocks than the stepM x stepKa %d x %d / stepN x stepKb %d x %d buffers",
            t.depthA1, t.depthB1, t.stepM, t.stepKa, t.stepN, t.stepKb);
      ok = false;
    }
  if (!ok)
    return false;
  /* L1 holds depthA1 blocks of baseM x baseK of A, depthB1 of baseN x baseK of B, and the bias of B's
   * stepN column blocks. */
  uint64_t l1 = static_cast<uint64_t> (t.depthA1) * t.baseM * t.baseK * a_bytes +
                static_cast<uint64_t> (t.depthB1) * t.baseN * t.baseK * b_bytes +
                static_cast<uint64_t> (t.stepN) * t.baseN * bias_bytes;
  if (g.l1_capacity > 0 && l1 > g.l1_capacity)
    {
      Diag ("FW-TWIN-L1-CAPACITY", file, line, "the tiling needs %llu bytes of L1, the profile has %u",
            (unsigned long long) l1, g.l1_capacity);
      ok = false;
    }
  /* L0A/L0B hold dbL0A (dbL0B) base blocks of A (B); L0C dbL0C blocks of C in float or, for int8_t
   * operands, int32_t (the accumulator, 4 bytes either way). */
  uint64_t l0a = static_cast<uint64_t> (t.dbL0A) * t.baseM * t.baseK * a_bytes;
  uint64_t l0b = static_cast<uint64_t> (t.dbL0B) * t.baseK * t.baseN * b_bytes;
  uint64_t l0c = static_cast<uint64_t> (t.dbL0C) * t.baseM * t.baseN * 4;
  const struct { const char *name; uint64_t need; uint32_t have; } l0[] = {
    { "L0A", l0a, g.l0a_capacity }, { "L0B", l0b, g.l0b_capacity }, { "L0C", l0c, g.l0c_capacity },
  };
  for (const auto &b : l0)
    if (b.have > 0 && b.need > b.have)
      {
        Diag ("FW-TWIN-L0-CAPACITY", file, line, "the tiling needs %llu bytes of %s, the profile has %u",
              (unsigned long long) b.need, b.name, b.have);
        ok = false;
      }
  return ok;
}

/* Eight columns at once (GCC and Clang vector extensions): each lane does what the scalar loop did for its
 * column, a product rounded to float and a sum rounded to float per k in order, so the results are the
 * same bits (the runtime is built with -ffp-contract=off: no multiply-add is fused). */
typedef float Lanes __attribute__ ((vector_size (8 * sizeof (float))));
enum { LANES = 8, ROWS = 4 };

void
BlockProduct (const float *a, uint64_t lda, const float *b, uint64_t ldb, bool trans_b, const float *bias, int rows,
              int cols, int K, float *c, uint64_t ldc)
{
  /* B's strip of eight columns over all of K, packed contiguous (zeros past the last column), is read once
   * per four rows of A; those four rows' eight sums stay in registers through K. */
  std::vector<float> strip (static_cast<size_t> (K) * LANES);
  for (int j0 = 0; j0 < cols; j0 += LANES)
    {
      int nj = std::min<int> (LANES, cols - j0);
      for (int k = 0; k < K; k++)
        for (int jj = 0; jj < LANES; jj++)
          strip[static_cast<size_t> (k) * LANES + jj] =
            jj >= nj ? 0.0f : trans_b ? b[static_cast<uint64_t> (j0 + jj) * ldb + k] : b[k * ldb + j0 + jj];
      for (int i0 = 0; i0 < rows; i0 += ROWS)
        {
          int ni = std::min<int> (ROWS, rows - i0);
          const float *ar[ROWS];
          for (int r = 0; r < ROWS; r++)
            ar[r] = a + static_cast<uint64_t> (i0 + (r < ni ? r : 0)) * lda;
          Lanes s0 = {}, s1 = {}, s2 = {}, s3 = {};
          const float *bp = strip.data ();
          for (int k = 0; k < K; k++, bp += LANES)
            {
              Lanes bv;
              std::memcpy (&bv, bp, sizeof bv);
              s0 += ar[0][k] * bv;
              s1 += ar[1][k] * bv;
              s2 += ar[2][k] * bv;
              s3 += ar[3][k] * bv;
            }
          const Lanes *sums[ROWS] = { &s0, &s1, &s2, &s3 };
          for (int r = 0; r < ni; r++)
            for (int jj = 0; jj < nj; jj++)
              c[static_cast<uint64_t> (i0 + r) * ldc + j0 + jj] = bias ? (*sums[r])[jj] + bias[j0 + jj] : (*sums[r])[jj];
        }
    }
}

}  // namespace twin
}  // namespace matmul
