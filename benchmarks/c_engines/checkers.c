/* Pawn checkers (8x8, no kings, one jump per turn), C bitboard engine.
 *
 * Bit (y - 1) * 8 + (x - 1) is square (x, y). Black moves up (y + 1), red down.
 * A turn is one diagonal step forward onto an empty square, or one jump over an
 * adjacent opponent pawn onto the empty square beyond, which captures it; jumps
 * are compulsory. The game ends when a side has no pawns, the side to move has
 * no move, or after 99 moves (the step counter reaches 100). Each side's goal
 * comes from its own captures by GOAL[].
 *
 * A turn never lists its moves: the two destination boards (towards x + 1 and
 * x - 1; jumps when there is one, else steps) are counted by popcount, one index is
 * drawn over their sum and its bit found by nth_bit; each side's turn is written
 * out on its own.
 */
#include <stdint.h>

#define NROLES 2
#include "common.h"

#define STEP_LIMIT 100
#define NOT_FILE1 0xFEFEFEFEFEFEFEFEULL /* every square except x = 1 */
#define NOT_FILE8 0x7F7F7F7F7F7F7F7FULL /* every square except x = 8 */

static const int GOAL[13] = {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 90, 100};
static uint64_t start_black, start_red;

static void init(void)
{
    for (int y = 1; y <= 8; y++)
        for (int x = 1; x <= 8; x++) {
            if ((x + y) % 2)
                continue;
            if (y <= 3)
                start_black |= 1ULL << ((y - 1) * 8 + (x - 1));
            if (y >= 6)
                start_red |= 1ULL << ((y - 1) * 8 + (x - 1));
        }
}

/* A diagonal step forward of every pawn of b: towards x + 1 (right) or x - 1. */
static inline uint64_t ahead(uint64_t b, int up, int right)
{
    if (up)
        return right ? (b & NOT_FILE8) << 9 : (b & NOT_FILE1) << 7;
    return right ? (b & NOT_FILE8) >> 7 : (b & NOT_FILE1) >> 9;
}

/* The square a diagonal step came from (the inverse of ahead, no mask needed). */
static inline uint64_t behind(uint64_t b, int up, int right)
{
    if (up)
        return right ? b >> 9 : b >> 7;
    return right ? b << 7 : b << 9;
}

/* One random move of the side whose pawns are own; returns 0 when it has none,
 * else 1, counting a capture in *captures. */
static inline int move(rng_t *rng, uint64_t *own, uint64_t *opp, int up, int *captures)
{
    uint64_t empty = ~(*own | *opp);
    uint64_t r = ahead(ahead(*own, up, 1) & *opp, up, 1) & empty;
    uint64_t l = ahead(ahead(*own, up, 0) & *opp, up, 0) & empty;
    int jumping = (r | l) != 0;
    if (!jumping) {
        r = ahead(*own, up, 1) & empty;
        l = ahead(*own, up, 0) & empty;
    }
    int nr = popcount(r);
    int n = nr + popcount(l);
    if (n == 0)
        return 0;
    int k = random_below(rng, n);
    int right = k < nr;
    uint64_t to = right ? nth_bit(r, k) : nth_bit(l, k - nr);
    uint64_t back = behind(to, up, right);
    if (jumping) {
        *opp ^= back;
        *own ^= behind(back, up, right) | to;
        (*captures)++;
    } else {
        *own ^= back | to;
    }
    return 1;
}

static void play(rng_t *rng, uint64_t *moves, int *goals)
{
    uint64_t black = start_black, red = start_red;
    int captures[2] = {0, 0};
    /* The step counter starts at 1, so at most STEP_LIMIT - 1 moves are played. */
    int step = 1;
    for (;;) {
        if (step >= STEP_LIMIT || !black || !red || !move(rng, &black, &red, 1, &captures[0]))
            break;
        step++;
        if (step >= STEP_LIMIT || !black || !red || !move(rng, &red, &black, 0, &captures[1]))
            break;
        step++;
    }
    *moves += (uint64_t)(step - 1);
    goals[0] = GOAL[captures[0]];
    goals[1] = GOAL[captures[1]];
}
