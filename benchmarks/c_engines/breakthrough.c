/* Breakthrough with holes (6x6, holes at (2,3) (3,4) (4,3) (5,4)), C bitboard engine.
 *
 * Bit (y - 1) * 6 + (x - 1) is cell (x, y). White moves up (y + 1), black down:
 * one row forward to the same or a neighbouring column, onto an empty cell that
 * is not a hole. Built with -DCAPTURE (breakthrough-holes-capture), a diagonal
 * move may also land on an opponent piece and capture it. A side wins when one
 * of its pieces reaches the far row, or when the other side is to move and has
 * no move; the winner scores 100, the loser 0.
 *
 * A turn never lists its moves: the three destination boards (straight, towards
 * x - 1, towards x + 1) are counted by popcount, one index is drawn over their sum
 * and its bit found by nth_bit; each side's turn is written out on its own.
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
#define COL1 (CELL(1, 1) | CELL(1, 2) | CELL(1, 3) | CELL(1, 4) | CELL(1, 5) | CELL(1, 6))
#define COL6 (COL1 << 5)
#define HOLES (CELL(2, 3) | CELL(3, 4) | CELL(4, 3) | CELL(5, 4))
#define NOT_COL1 (FULL & ~COL1)
#define NOT_COL6 (FULL & ~COL6)

static void init(void) {}

/* One random move of the side whose pieces are own, toward up (white) or down
 * (black); returns 0 when that side has no move. */
static inline int move(rng_t *rng, uint64_t *own, uint64_t *opp, int up)
{
    uint64_t empty = FULL & ~(*own | *opp | HOLES);
    uint64_t diag = CAPTURING ? empty | *opp : empty;
    uint64_t fwd, left, right;
    if (up) {
        fwd = (*own << 6) & empty;
        left = ((*own & NOT_COL1) << 5) & diag;
        right = ((*own & NOT_COL6) << 7) & diag;
    } else {
        fwd = (*own >> 6) & empty;
        left = ((*own & NOT_COL1) >> 7) & diag;
        right = ((*own & NOT_COL6) >> 5) & diag;
    }
    int n0 = popcount(fwd), n1 = popcount(left);
    int n = n0 + n1 + popcount(right);
    if (n == 0)
        return 0;
    int k = random_below(rng, n);
    uint64_t board;
    int shift;
    if (k < n0) {
        board = fwd;
        shift = 6;
    } else if (k < n0 + n1) {
        board = left;
        k -= n0;
        shift = up ? 5 : 7;
    } else {
        board = right;
        k -= n0 + n1;
        shift = up ? 7 : 5;
    }
    uint64_t to = nth_bit(board, k);
    uint64_t from = up ? to >> shift : to << shift;
    *own ^= from | to;
    if (CAPTURING)
        *opp &= ~to;
    return 1;
}

static void play(rng_t *rng, uint64_t *moves, int *goals)
{
    uint64_t white = ROW1 | ROW1 << 6, black = ROW6 | ROW6 >> 6;
    int white_won;
    uint64_t m = 0;
    for (;;) {
        if (!move(rng, &white, &black, 1)) {
            white_won = 0;
            break;
        }
        m++;
        if (white & ROW6) {
            white_won = 1;
            break;
        }
        if (!move(rng, &black, &white, 0)) {
            white_won = 1;
            break;
        }
        m++;
        if (black & ROW1) {
            white_won = 0;
            break;
        }
    }
    *moves += m;
    goals[0] = white_won ? 100 : 0;
    goals[1] = white_won ? 0 : 100;
}
