/* Shared by the C baseline engines: a xorshift64 generator, bit selection and the report.

The engines are written for speed, as a C programmer would write a playout engine:
uint64 bitboards, moves counted by popcount and never listed, the chosen move's bit
found by BMI2 pdep where the CPU has it, the two sides' turns unrolled.
 *
 * Each engine defines NROLES, init() and play(rng, &moves, goals), one random
 * playout from the start; main() runs N playouts and prints one line of totals and the
 * CPU time of the playout loop, read with clock():
 *
 *   playouts=N moves=M moves_sq=Q goals=G1[,G2] goals_sq=S1[,S2] cpu=SECONDS
 *
 * Usage: ENGINE N [SEED]
 */
#ifndef COMMON_H
#define COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __BMI2__
#include <immintrin.h>
#endif

typedef struct {
    uint64_t s;
} rng_t;

/* Marsaglia's xorshift64 (13, 7, 17); the state must not be 0. */
static inline uint64_t next_random(rng_t *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    r->s = x;
    return x;
}

/* A number in [0, n) from the high 32 bits (multiply-shift). */
static inline int random_below(rng_t *r, int n)
{
    return (int)(((next_random(r) >> 32) * (uint64_t)n) >> 32);
}

/* The k-th lowest set bit of b (k counts from 0; b has more than k bits set). */
static inline uint64_t nth_bit(uint64_t b, int k)
{
#ifdef __BMI2__
    return _pdep_u64(1ULL << k, b);
#else
    while (k--)
        b &= b - 1;
    return b & -b;
#endif
}

static inline int popcount(uint64_t b)
{
    return __builtin_popcountll(b);
}

/* Set up the engine's tables (called once, before the clock starts). */
static void init(void);

/* One playout from the start: adds its joint moves to *moves, writes the goals. */
static void play(rng_t *rng, uint64_t *moves, int *goals);

#ifndef NROLES
#error "define NROLES before including common.h"
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLAYOUTS [SEED]\n", argv[0]);
        return 2;
    }
    long count = atol(argv[1]);
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    rng_t rng = {seed * 0x9E3779B97F4A7C15ULL | 1};
    uint64_t moves = 0, moves_sq = 0;
    uint64_t goals[NROLES] = {0}, goals_sq[NROLES] = {0};
    init();

    clock_t start = clock();
    for (long i = 0; i < count; i++) {
        uint64_t m = 0;
        int g[NROLES];
        play(&rng, &m, g);
        moves += m;
        moves_sq += m * m;
        for (int r = 0; r < NROLES; r++) {
            goals[r] += (uint64_t)g[r];
            goals_sq[r] += (uint64_t)(g[r] * g[r]);
        }
    }
    double cpu = (double)(clock() - start) / CLOCKS_PER_SEC;

    printf("playouts=%ld moves=%llu moves_sq=%llu goals=", count,
           (unsigned long long)moves, (unsigned long long)moves_sq);
    for (int r = 0; r < NROLES; r++)
        printf(r ? ",%llu" : "%llu", (unsigned long long)goals[r]);
    printf(" goals_sq=");
    for (int r = 0; r < NROLES; r++)
        printf(r ? ",%llu" : "%llu", (unsigned long long)goals_sq[r]);
    printf(" cpu=%.6f\n", cpu);
    return 0;
}

#endif
