/* Peg solitaire (English cross, 33 holes), C bitboard engine.
 *
 * Bit r * 7 + c is hole (row r = a..g, column c = c1..c7). A jump goes from a
 * peg over a peg into an empty hole, two holes away in a row or column; the
 * game ends when no jump is left. Goal: one peg on d c4 100, one peg elsewhere
 * 99, n = 2..10 pegs 100 - 10 (n - 1), more 0.
 *
 * A turn never lists its jumps: the four boards of jump sources (one a direction)
 * are counted by popcount, one index is drawn over their sum and its bit found by
 * nth_bit.
 */
#include <stdint.h>

#define NROLES 1
#include "common.h"

#define CENTER (3 * 7 + 3)

static uint64_t holes;    /* the 33 holes of the cross */
static uint64_t valid[4]; /* sources whose middle and destination are holes */

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

static int goal(uint64_t pegs)
{
    int n = popcount(pegs);
    if (n == 1)
        return pegs == 1ULL << CENTER ? 100 : 99;
    if (n <= 10)
        return 100 - 10 * (n - 1);
    return 0;
}

static void play(rng_t *rng, uint64_t *moves, int *goals)
{
    const uint64_t h = holes, v0 = valid[0], v1 = valid[1], v2 = valid[2], v3 = valid[3];
    uint64_t pegs = h & ~(1ULL << CENTER);
    uint64_t m = 0;
    for (;;) {
        uint64_t empty = h & ~pegs;
        uint64_t j0 = pegs & (pegs >> 1) & (empty >> 2) & v0;   /* right */
        uint64_t j1 = pegs & (pegs << 1) & (empty << 2) & v1;   /* left */
        uint64_t j2 = pegs & (pegs >> 7) & (empty >> 14) & v2;  /* down */
        uint64_t j3 = pegs & (pegs << 7) & (empty << 14) & v3;  /* up */
        int n0 = popcount(j0), n1 = popcount(j1), n2 = popcount(j2);
        int n = n0 + n1 + n2 + popcount(j3);
        if (n == 0)
            break;
        int k = random_below(rng, n);
        uint64_t from, over, to;
        if (k < n0) {
            from = nth_bit(j0, k);
            over = from << 1;
            to = from << 2;
        } else if (k < n0 + n1) {
            from = nth_bit(j1, k - n0);
            over = from >> 1;
            to = from >> 2;
        } else if (k < n0 + n1 + n2) {
            from = nth_bit(j2, k - n0 - n1);
            over = from << 7;
            to = from << 14;
        } else {
            from = nth_bit(j3, k - n0 - n1 - n2);
            over = from >> 7;
            to = from >> 14;
        }
        pegs ^= from | over | to;
        m++;
    }
    *moves += m;
    goals[0] = goal(pegs);
}
