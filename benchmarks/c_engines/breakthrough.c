/* Breakthrough with holes (6x6, holes at (2,3) (3,4) (4,3) (5,4)), plain C bitboard engine.
 *
 * Bit (y - 1) * 6 + (x - 1) is cell (x, y). White moves up (y + 1), black down:
 * one row forward to the same or a neighbouring column, onto an empty cell that
 * is not a hole. Built with -DCAPTURE (breakthrough-holes-capture), a diagonal
 * move may also land on an opponent piece and capture it. A side wins when one
 * of its pieces reaches the far row, or when the other side is to move and has
 * no move; the winner scores 100, the loser 0.
 */
#include <stdint.h>

#define NROLES 2
#include "common.h"

#ifdef CAPTURE
#define CAPTURING 1
#else
#define CAPTURING 0
#endif

#define FULL ((1ULL << 36) - 1)
#define ROW1 0x3FULL
#define ROW6 (0x3FULL << 30)
#define CELL(x, y) (1ULL << (((y) - 1) * 6 + ((x) - 1)))

static uint64_t holes, not_col1, not_col6;

static void init(void)
{
    holes = CELL(2, 3) | CELL(3, 4) | CELL(4, 3) | CELL(5, 4);
    uint64_t col1 = 0, col6 = 0;
    for (int y = 1; y <= 6; y++) {
        col1 |= CELL(1, y);
        col6 |= CELL(6, y);
    }
    not_col1 = FULL & ~col1;
    not_col6 = FULL & ~col6;
}

typedef struct {
    int8_t from, to;
} move_t;

/* Append a move for every destination in to, coming from to - delta. */
static inline int add_moves(uint64_t to, int delta, move_t *out, int n)
{
    while (to) {
        int sq = __builtin_ctzll(to);
        out[n].from = (int8_t)(sq - delta);
        out[n].to = (int8_t)sq;
        n++;
        to &= to - 1;
    }
    return n;
}

/* The legal moves of side 0 (white) or 1 (black). */
static int generate(const uint64_t *pieces, int side, move_t *out)
{
    uint64_t empty = FULL & ~(pieces[0] | pieces[1] | holes);
    uint64_t diag = CAPTURING ? empty | pieces[side ^ 1] : empty;
    uint64_t own = pieces[side];
    int n = 0;
    if (side == 0) {
        n = add_moves((own << 6) & empty, 6, out, n);
        n = add_moves(((own & not_col1) << 5) & diag, 5, out, n);
        n = add_moves(((own & not_col6) << 7) & diag, 7, out, n);
    } else {
        n = add_moves((own >> 6) & empty, -6, out, n);
        n = add_moves(((own & not_col1) >> 7) & diag, -7, out, n);
        n = add_moves(((own & not_col6) >> 5) & diag, -5, out, n);
    }
    return n;
}

static void play(rng_t *rng, uint64_t *moves, int *goals)
{
    uint64_t pieces[2] = {ROW1 | ROW1 << 6, ROW6 | ROW6 >> 6};
    int side = 0, winner;
    move_t list[36];
    for (;;) {
        int n = generate(pieces, side, list);
        if (n == 0) {
            winner = side ^ 1; /* the side to move is blocked: the other wins */
            break;
        }
        move_t m = list[random_below(rng, n)];
        uint64_t to = 1ULL << m.to;
        pieces[side] ^= (1ULL << m.from) | to;
        pieces[side ^ 1] &= ~to; /* a capture (never set without CAPTURE) */
        (*moves)++;
        if (pieces[0] & ROW6) {
            winner = 0;
            break;
        }
        if (pieces[1] & ROW1) {
            winner = 1;
            break;
        }
        side ^= 1;
    }
    goals[0] = winner == 0 ? 100 : 0;
    goals[1] = winner == 1 ? 100 : 0;
}
