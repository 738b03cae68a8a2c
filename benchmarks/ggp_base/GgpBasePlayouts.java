// Random playouts on ggp-base's own state machine (its prover, the reference GDL reasoner
// of the 2010s), the way gdl-perf's harness drives it: per step a random joint move and
// the next state; at the end, each role's goal. A benchmark only: it is compiled at run
// time by benchmarks/perftest_vs_references.py against a ggp-base build given with
// --ggp-base-classpath (its compiled classes and the jars of its lib/); nothing of
// ggp-base is shipped.
//
// Usage: GgpBasePlayouts <game.kif> <seconds> [--warmup S]
// Prints "initialize=<ms> ms" and "playouts=<n> seconds=<s> playouts_per_sec=<r>".

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.ggp.base.util.game.Game;
import org.ggp.base.util.gdl.grammar.Gdl;
import org.ggp.base.util.statemachine.MachineState;
import org.ggp.base.util.statemachine.Role;
import org.ggp.base.util.statemachine.StateMachine;
import org.ggp.base.util.statemachine.implementation.prover.ProverStateMachine;

public final class GgpBasePlayouts {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: GgpBasePlayouts <game.kif> <seconds> [--warmup S]");
            System.exit(2);
        }
        double seconds = Double.parseDouble(args[1]);
        double warmup = 2.0;
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--warmup")) warmup = Double.parseDouble(args[++i]);
        }
        String text = new String(Files.readAllBytes(Paths.get(args[0])), "UTF-8");
        long t0 = System.nanoTime();
        List<Gdl> rules = Game.createEphemeralGame(Game.preprocessRulesheet(text)).getRules();
        StateMachine sm = new ProverStateMachine();
        sm.initialize(rules);
        MachineState initial = sm.getInitialState();
        System.out.printf("initialize=%.0f ms%n", (System.nanoTime() - t0) / 1e6);
        if (warmup > 0) run(sm, initial, warmup);
        long[] got = run(sm, initial, seconds);
        double elapsed = got[1] / 1e9;
        System.out.printf("playouts=%d seconds=%.2f playouts_per_sec=%.1f%n", got[0], elapsed, got[0] / elapsed);
        System.exit(0);
    }

    /** Playouts from the initial state for ``seconds``: {playouts, nanoseconds}; at least one. */
    static long[] run(StateMachine sm, MachineState initial, double seconds) throws Exception {
        List<Role> roles = sm.getRoles();
        long begin = System.nanoTime();
        long end = begin + (long) (seconds * 1e9);
        long playouts = 0;
        long goals = 0;
        do {
            MachineState state = initial;
            while (!sm.isTerminal(state)) state = sm.getRandomNextState(state);
            for (Role role : roles) goals += sm.getGoal(state, role);
            playouts++;
        } while (System.nanoTime() < end);
        if (goals < 0) System.out.println("impossible");  // keeps the goals from being optimised away
        return new long[] {playouts, System.nanoTime() - begin};
    }
}
