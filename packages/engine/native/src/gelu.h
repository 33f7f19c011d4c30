/*
 * GELU, tanh form (GPT-2), and its derivative, per element; shared by the GELU kernels (fused.c) and the
 * dense layer's epilogue (linear.c).
 *   gelu(x) = x·s,  s = sigmoid(2u) = 0.5·(1 + tanh u),  u = c·(x + a·x³)
 */
#ifndef RRED_GELU_H
#define RRED_GELU_H
#include "fastmath.h"

#define GELU_C 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

/* sigmoid(2u) rather than 0.5·(1 + tanh u): no cancellation for very negative x. */
static inline float gelu_sigmoid(float v) { return 1.0f / (1.0f + rred_expf(-2.0f * GELU_C * (v + GELU_A * v * v * v))); }

static inline float gelu_value(float v) { return v * gelu_sigmoid(v); }

/* d/dx of x·s: s + 2x·s·(1 − s)·c·(1 + 3a·x²) (= 0.5·(1 + t) + 0.5·x·(1 − t²)·u', t = tanh u, without cancellation). */
static inline float gelu_deriv(float v) {
  const float s = gelu_sigmoid(v);
  return s + 2.0f * v * s * (1.0f - s) * GELU_C * (1.0f + 3.0f * GELU_A * v * v);
}

#endif
