/* Pawn checkers (8x8, no kings, one jump per turn), plain C bitboard engine.
 *
 * Bit (y - 1) * 8 + (x - 1) is square (x, y). Black moves up (y + 1), red down.
 * A turn is one diagonal step forward onto an empty square, or one jump over an
 * adjacent opponent pawn onto the empty square beyond, which captures it; jumps
 * are compulsory. The game ends when a side has no pawns, the side to move has
 * no move, or after 99 moves (the step counter reaches 100). Each side's goal
 * comes from its own captures by GOAL[].
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

/* Pawns of b moved one square diagonally forward: side 0 (black) up, 1 (red) down;
 * d 0 towards x + 1, d 1 towards x - 1. Pawns that would leave the board vanish. */
static inline uint64_t forward(uint64_t b, int side, int d)
{
    if (d == 0)
        return side == 0 ? (b & NOT_FILE8) << 9 : (b & NOT_FILE8) >> 7;
    return side == 0 ? (b & NOT_FILE1) << 7 : (b & NOT_FILE1) >> 9;
}

/* Square index a diagonal step forward changes by, per side and direction. */
static const int DELTA[2][2] = {{9, 7}, {-7, -9}};

typedef struct {
    int8_t from, to;
} move_t;

/* The legal moves of side; sets *jumping when they are jumps (compulsory). */
static int generate(uint64_t own, uint64_t opp, int side, move_t *out, int *jumping)
{
    uint64_t empty = ~(own | opp);
    int n = 0;
    for (int d = 0; d < 2; d++) {
        uint64_t to = forward(forward(own, side, d) & opp, side, d) & empty;
        while (to) {
            int sq = __builtin_ctzll(to);
            out[n].from = (int8_t)(sq - 2 * DELTA[side][d]);
            out[n].to = (int8_t)sq;
            n++;
            to &= to - 1;
        }
    }
    *jumping = n > 0;
    if (n)
        return n;
    for (int d = 0; d < 2; d++) {
        uint64_t to = forward(own, side, d) & empty;
        while (to) {
            int sq = __builtin_ctzll(to);
            out[n].from = (int8_t)(sq - DELTA[side][d]);
            out[n].to = (int8_t)sq;
            n++;
            to &= to - 1;
        }
    }
    return n;
}

static void play(rng_t *rng, uint64_t *moves, int *goals)
{
    uint64_t pawns[2] = {start_black, start_red};
    int captures[2] = {0, 0};
    int side = 0;
    move_t list[48];
    /* The step counter starts at 1, so at most STEP_LIMIT - 1 moves are played. */
    for (int step = 1; step < STEP_LIMIT && pawns[0] && pawns[1]; step++) {
        int jumping;
        int n = generate(pawns[side], pawns[side ^ 1], side, list, &jumping);
        if (n == 0)
            break;
        move_t m = list[random_below(rng, n)];
        pawns[side] ^= (1ULL << m.from) | (1ULL << m.to);
        if (jumping) {
            pawns[side ^ 1] ^= 1ULL << ((m.from + m.to) / 2);
            captures[side]++;
        }
        side ^= 1;
        (*moves)++;
    }
    goals[0] = GOAL[captures[0]];
    goals[1] = GOAL[captures[1]];
}
