/* Peg solitaire (English cross, 33 holes), plain C bitboard engine.
 *
 * Bit r * 7 + c is hole (row r = a..g, column c = c1..c7). A jump goes from a
 * peg over a peg into an empty hole, two holes away in a row or column; the
 * game ends when no jump is left. Goal: one peg on d c4 100, one peg elsewhere
 * 99, n = 2..10 pegs 100 - 10 (n - 1), more 0.
 */
#include <stdint.h>

#define NROLES 1
#include "common.h"

#define CENTER (3 * 7 + 3)

static uint64_t holes;    /* the 33 holes of the cross */
static uint64_t valid[4]; /* sources whose middle and destination are holes */
static const int shift[4] = {1, -1, 7, -7};

static int on_cross(int r, int c)
{
    if (r < 0 || r > 6 || c < 0 || c > 6)
        return 0;
    return (r >= 2 && r <= 4) || (c >= 2 && c <= 4);
}

static void init(void)
{
    static const int dr[4] = {0, 0, 1, -1}, dc[4] = {1, -1, 0, 0};
    for (int r = 0; r < 7; r++)
        for (int c = 0; c < 7; c++) {
            if (!on_cross(r, c))
                continue;
            holes |= 1ULL << (r * 7 + c);
            for (int d = 0; d < 4; d++)
                if (on_cross(r + dr[d], c + dc[d]) && on_cross(r + 2 * dr[d], c + 2 * dc[d]))
                    valid[d] |= 1ULL << (r * 7 + c);
        }
}

/* Legal jumps as (source, direction) pairs; returns their number. */
static int generate(uint64_t pegs, int *src, int *dir)
{
    uint64_t empty = holes & ~pegs;
    uint64_t jumps[4] = {
        pegs & (pegs >> 1) & (empty >> 2) & valid[0],  /* right */
        pegs & (pegs << 1) & (empty << 2) & valid[1],  /* left */
        pegs & (pegs >> 7) & (empty >> 14) & valid[2], /* down */
        pegs & (pegs << 7) & (empty << 14) & valid[3], /* up */
    };
    int n = 0;
    for (int d = 0; d < 4; d++) {
        uint64_t m = jumps[d];
        while (m) {
            src[n] = __builtin_ctzll(m);
            dir[n] = d;
            n++;
            m &= m - 1;
        }
    }
    return n;
}

static int goal(uint64_t pegs)
{
    int n = __builtin_popcountll(pegs);
    if (n == 1)
        return pegs == 1ULL << CENTER ? 100 : 99;
    if (n <= 10)
        return 100 - 10 * (n - 1);
    return 0;
}

static void play(rng_t *rng, uint64_t *moves, int *goals)
{
    uint64_t pegs = holes & ~(1ULL << CENTER);
    int src[76], dir[76];
    int n;
    while ((n = generate(pegs, src, dir)) > 0) {
        int k = random_below(rng, n);
        int s = src[k], step = shift[dir[k]];
        pegs ^= (1ULL << s) | (1ULL << (s + step)) | (1ULL << (s + 2 * step));
        (*moves)++;
    }
    goals[0] = goal(pegs);
}
