/* twin_copy.h: DataCopy and DataCopyPad of the Ascend C twin (included by kernel_operator.h). */
#ifndef FW_TWIN_COPY_H
#define FW_TWIN_COPY_H

namespace AscendC {

/* DataCopy.md (contiguous count form): GM -> UB on MTE2, UB -> GM on MTE3. The UB address must be 32-byte
 * aligned and the length a 32-byte multiple ("非对齐场景" / non-alignment page: DataCopy moves 32-byte
 * aligned lengths); a length that is not one moves only the whole 32-byte blocks, so a kernel relying on the
 * rest shows up in the numbers. */
template <typename T>
void DataCopy (const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count, FW_LOC)
{
  uint64_t bytes = static_cast<uint64_t> (count) * sizeof (T) / 32 * 32;
  uint64_t n = bytes / sizeof (T);
  fwtwin::Issue (fwtwin::P_MTE2);
  T *d = dst.Use (n, fwtwin::P_MTE2, true, true, "DataCopy to UB", FW_AT);
  if (d == nullptr || !src.Check (0, n, false, "DataCopy from GM", FW_AT))
    return;
  std::memcpy (d, src.Address (), bytes);
  fwtwin::CountCopy (fwtwin::P_MTE2, bytes);
}

template <typename T>
void DataCopy (const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count, FW_LOC)
{
  uint64_t bytes = static_cast<uint64_t> (count) * sizeof (T) / 32 * 32;
  uint64_t n = bytes / sizeof (T);
  fwtwin::Issue (fwtwin::P_MTE3);
  const T *s = src.Use (n, fwtwin::P_MTE3, false, true, "DataCopy from UB", FW_AT);
  if (s == nullptr || !dst.Check (0, n, true, "DataCopy to GM", FW_AT))
    return;
  std::memcpy (dst.Address (), s, bytes);
  fwtwin::CountCopy (fwtwin::P_MTE3, bytes);
}

/* DataCopyPad.md (DataCopyExtParams / DataCopyPadExtParams<T> prototypes). */
struct DataCopyExtParams
{
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
  DataCopyExtParams () {}
  DataCopyExtParams (const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                     const uint32_t rsvIn)
    : blockCount (count), blockLen (len), srcStride (srcStrideIn), dstStride (dstStrideIn), rsv (rsvIn) {}
};

template <typename T> struct DataCopyPadExtParams
{
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T ();
  DataCopyPadExtParams () {}
  DataCopyPadExtParams (const bool isPadIn, const uint8_t leftPadIn, const uint8_t rightPadIn, T padValue)
    : isPad (isPadIn), leftPadding (leftPadIn), rightPadding (rightPadIn), paddingValue (padValue) {}
};

namespace twin {
/* DataCopyPad.md parameter table: blockCount in [1, 4095], blockLen in [1, 2097151] bytes; the paddings at
 * most 32 bytes of elements each. */
bool CheckPadParams (const DataCopyExtParams &p, uint32_t left_bytes, uint32_t right_bytes, const char *file, int line);
}  // namespace twin

/* GM -> UB: blockCount blocks of blockLen bytes, srcStride bytes apart in GM (gap after each block), each
 * landing 32-byte aligned in UB (leftPadding + blockLen + rightPadding rounded up to 32 bytes, then dstStride
 * blocks of 32 bytes of gap). The bytes of the last 32-byte block past the data are padding: paddingValue
 * with isPad, otherwise the block's first element ("dummy" data, DataCopyPad.md). */
template <typename T>
void DataCopyPad (const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &p,
                  const DataCopyPadExtParams<T> &pad, FW_LOC)
{
  uint32_t lb = pad.leftPadding * static_cast<uint32_t> (sizeof (T));
  uint32_t rb = pad.rightPadding * static_cast<uint32_t> (sizeof (T));
  fwtwin::Issue (fwtwin::P_MTE2);
  if (!twin::CheckPadParams (p, lb, rb, FW_AT))
    return;
  uint64_t row = (static_cast<uint64_t> (lb) + p.blockLen + rb + 31) / 32 * 32;
  uint64_t pitch = row + static_cast<uint64_t> (p.dstStride) * 32;
  uint64_t span = pitch * (p.blockCount - 1) + row;
  if (p.blockLen % sizeof (T) != 0)
    fwtwin::Diag ("FW-TWIN-PAD-PARAMS", FW_AT, "DataCopyPad blockLen %u is not a whole number of elements", p.blockLen);
  uint8_t *d = reinterpret_cast<uint8_t *> (dst.Use ((span + sizeof (T) - 1) / sizeof (T), fwtwin::P_MTE2, true, true,
                                                     "DataCopyPad to UB", FW_AT));
  if (d == nullptr)
    return;
  const uint8_t *s = reinterpret_cast<const uint8_t *> (src.Address ());
  uint64_t gstep = static_cast<uint64_t> (p.blockLen) + p.srcStride;
  if (!src.Check (0, (gstep * (p.blockCount - 1) + p.blockLen) / sizeof (T), false, "DataCopyPad from GM", FW_AT))
    return;
  for (uint32_t b = 0; b < p.blockCount; b++)
    {
      uint8_t *o = d + b * pitch;
      const uint8_t *i = s + b * gstep;
      T fill = pad.isPad ? pad.paddingValue : T ();
      if (!pad.isPad)
        std::memcpy (&fill, i, sizeof (T));
      for (uint32_t k = 0; k < lb; k += sizeof (T))
        std::memcpy (o + k, &fill, sizeof (T));
      std::memcpy (o + lb, i, p.blockLen);
      for (uint64_t k = lb + p.blockLen; k + sizeof (T) <= row; k += sizeof (T))
        std::memcpy (o + k, &fill, sizeof (T));
    }
  fwtwin::CountCopy (fwtwin::P_MTE2, static_cast<uint64_t> (p.blockLen) * p.blockCount);
}

/* UB -> GM: blockCount blocks of blockLen bytes, each starting 32-byte aligned in UB (srcStride blocks of 32
 * bytes of gap after the rounded-up block), written dstStride bytes apart in GM. */
template <typename T>
void DataCopyPad (const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &p, FW_LOC)
{
  fwtwin::Issue (fwtwin::P_MTE3);
  if (!twin::CheckPadParams (p, 0, 0, FW_AT))
    return;
  uint64_t row = (static_cast<uint64_t> (p.blockLen) + 31) / 32 * 32;
  uint64_t pitch = row + static_cast<uint64_t> (p.srcStride) * 32;
  uint64_t span = pitch * (p.blockCount - 1) + p.blockLen;
  const uint8_t *s = reinterpret_cast<const uint8_t *> (src.Use ((span + sizeof (T) - 1) / sizeof (T), fwtwin::P_MTE3,
                                                                 false, true, "DataCopyPad from UB", FW_AT));
  if (s == nullptr)
    return;
  uint8_t *d = reinterpret_cast<uint8_t *> (dst.Address ());
  uint64_t gstep = static_cast<uint64_t> (p.blockLen) + p.dstStride;
  for (uint32_t b = 0; b < p.blockCount; b++)
    {
      if (!dst[(b * gstep) / sizeof (T)].Check (0, p.blockLen / sizeof (T), true, "DataCopyPad to GM", FW_AT))
        return;
      std::memcpy (d + b * gstep, s + b * pitch, p.blockLen);
    }
  fwtwin::CountCopy (fwtwin::P_MTE3, static_cast<uint64_t> (p.blockLen) * p.blockCount);
}

}  // namespace AscendC

#endif
