/*
 * Branch-free float exp and tanh that gcc vectorizes (libm's expf/tanhf are scalar calls).
 * Both are accurate to a few ulp (relative error < 2e-7 on the tested range), keep NaN as NaN,
 * and saturate like libm: exp overflows to +inf and underflows (through subnormals) to 0.
 */
#ifndef RRED_FASTMATH_H
#define RRED_FASTMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float rred_pow2i(int32_t n) { /* 2^n for n in [-126, 127] */
  const int32_t bits = (n + 127) << 23;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static inline float rred_expf(float x) {
  /* Clamp into the range where the two-factor scaling below is exact; NaN fails both tests and stays NaN. */
  const float xc = x > 88.7228f ? 88.7228f : (x < -104.0f ? -104.0f : x);
  /* x = n ln2 + r, |r| <= ln2/2 (Cody-Waite split of ln2 keeps r exact). */
  const float n = floorf(xc * 1.44269504088896341f + 0.5f);
  float r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  /* Minimax polynomial for exp(r) on [-ln2/2, ln2/2] (Cephes expf coefficients). */
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  /* Scale by 2^n in two halves so subnormal results (n down to -150) stay representable. */
  const int32_t ni = (int32_t)n;
  const int32_t n1 = ni / 2;
  float y = p * rred_pow2i(n1) * rred_pow2i(ni - n1);
  y = x > 88.7228f ? INFINITY : y;
  y = x < -104.0f ? 0.0f : y;
  return y;
}

static inline float rred_tanhf(float x) {
  const float ax = fabsf(x);
  /* Small |x|: odd polynomial (Cephes tanhf) keeps full relative precision near 0. */
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  /* Larger |x|: 1 - 2 / (exp(2|x|) + 1), saturating to 1 (exp -> inf gives exactly 1). */
  const float e = rred_expf(2.0f * (ax > 20.0f ? 20.0f : ax));
  const float big = copysignf(1.0f - 2.0f / (e + 1.0f), x);
  const float y = ax < 0.625f ? small : big;
  return x != x ? x : y; /* NaN in, NaN out */
}

#endif
