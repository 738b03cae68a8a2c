// What the Java harnesses share: their arguments, the game's rules read through ggp-base's
// Game class (Sancho's build has it too), the timed loop of playouts and its report. It is
// compiled with each harness by benchmarks/perftest_vs_references.py; nothing of the
// references is shipped.
//
// A harness's usage: <Harness> <game.kif> <seconds> [--warmup S]
// It prints "initialize=<ms> ms" and "playouts=<n> seconds=<s> playouts_per_sec=<r>".

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.ggp.base.util.game.Game;
import org.ggp.base.util.gdl.grammar.Gdl;

final class PlayoutClock {
    /** One random playout from the initial state: the sum of the roles' goals. */
    interface Playout {
        long play() throws Exception;
    }

    private final String game;
    private final double seconds;
    private final double warmup;
    private final long began = System.nanoTime();

    private PlayoutClock(String game, double seconds, double warmup) {
        this.game = game;
        this.seconds = seconds;
        this.warmup = warmup;
    }

    /** The clock of ``harness`` run with ``args`` (exits with its usage when they are wrong). */
    static PlayoutClock of(String harness, String[] args) {
        if (args.length < 2) {
            System.err.println("usage: " + harness + " <game.kif> <seconds> [--warmup S]");
            System.exit(2);
        }
        double warmup = 2.0;
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--warmup")) warmup = Double.parseDouble(args[++i]);
        }
        return new PlayoutClock(args[0], Double.parseDouble(args[1]), warmup);
    }

    /** The game's rules, as ggp-base reads a rulesheet. */
    List<Gdl> rules() throws Exception {
        String text = new String(Files.readAllBytes(Paths.get(game)), "UTF-8");
        return Game.createEphemeralGame(Game.preprocessRulesheet(text)).getRules();
    }

    /** Report the set-up (from this clock's making), warm up, time the playouts, report, exit. */
    void time(Playout playout) throws Exception {
        System.out.printf("initialize=%.0f ms%n", (System.nanoTime() - began) / 1e6);
        if (warmup > 0) run(playout, warmup);
        long[] got = run(playout, seconds);
        double elapsed = got[1] / 1e9;
        System.out.printf("playouts=%d seconds=%.2f playouts_per_sec=%.1f%n", got[0], elapsed, got[0] / elapsed);
        System.exit(0);
    }

    /** Playouts for ``limit`` seconds, at least one: {playouts, nanoseconds}. */
    private static long[] run(Playout playout, double limit) throws Exception {
        long begin = System.nanoTime();
        long end = begin + (long) (limit * 1e9);
        long playouts = 0;
        long goals = 0;
        do {
            goals += playout.play();
            playouts++;
        } while (System.nanoTime() < end);
        if (goals < 0) System.out.println("impossible");  // keeps the goals from being optimised away
        return new long[] {playouts, System.nanoTime() - begin};
    }
}
