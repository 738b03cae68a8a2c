// Random playouts on Sancho 1.61c's propnet (the 2014 champion player's state machine),
// the way gdl-perf's harness drives it: per step, the legal move set, one random move per
// role, the next state; at the end, each role's goal. A benchmark only: it is compiled at
// run time by benchmarks/perftest_vs_references.py against a Sancho build given with
// --sancho (a directory of its compiled classes and jars); nothing of Sancho is shipped.
//
// Usage: SanchoPlayouts <game.kif> <seconds> [--warmup S]
// Prints "initialize=<ms> ms" and "playouts=<n> seconds=<s> playouts_per_sec=<r>".

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.ggp.base.util.game.Game;
import org.ggp.base.util.gdl.grammar.Gdl;
import org.ggp.base.util.propnet.polymorphic.forwardDeadReckon.ForwardDeadReckonInternalMachineState;
import org.ggp.base.util.propnet.polymorphic.forwardDeadReckon.ForwardDeadReckonLegalMoveInfo;
import org.ggp.base.util.propnet.polymorphic.forwardDeadReckon.ForwardDeadReckonLegalMoveSet;
import org.ggp.base.util.statemachine.Role;
import org.ggp.base.util.statemachine.implementation.propnet.forwardDeadReckon.ForwardDeadReckonPropnetStateMachine;

public final class SanchoPlayouts {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: SanchoPlayouts <game.kif> <seconds> [--warmup S]");
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
        ForwardDeadReckonPropnetStateMachine sm = new ForwardDeadReckonPropnetStateMachine();
        sm.initialize(rules);
        sm.enableGreedyRollouts(false, true);
        sm.optimizeStateTransitionMechanism(System.currentTimeMillis() + 5000);
        ForwardDeadReckonInternalMachineState initial = sm.createInternalState(sm.getInitialState());
        System.out.printf("initialize=%.0f ms%n", (System.nanoTime() - t0) / 1e6);
        if (warmup > 0) run(sm, initial, warmup);
        long[] got = run(sm, initial, seconds);
        double elapsed = got[1] / 1e9;
        System.out.printf("playouts=%d seconds=%.2f playouts_per_sec=%.1f%n", got[0], elapsed, got[0] / elapsed);
        System.exit(0);
    }

    /** Playouts from the initial state for ``seconds``: {playouts, nanoseconds}. */
    static long[] run(ForwardDeadReckonPropnetStateMachine sm, ForwardDeadReckonInternalMachineState initial, double seconds) {
        Role[] roles = sm.getRoles();
        ForwardDeadReckonInternalMachineState state = sm.createEmptyInternalState();
        ForwardDeadReckonInternalMachineState next = sm.createEmptyInternalState();
        ForwardDeadReckonLegalMoveInfo[] chosen = new ForwardDeadReckonLegalMoveInfo[roles.length];
        long begin = System.nanoTime();
        long end = begin + (long) (seconds * 1e9);
        long playouts = 0;
        long goals = 0;
        while (System.nanoTime() < end) {
            state.copy(initial);
            while (!sm.isTerminal(state)) {
                ForwardDeadReckonLegalMoveSet moves = sm.getLegalMoveSet(state);
                for (int r = 0; r < roles.length; r++) chosen[r] = moves.getRandomMove(r);
                sm.getNextState(state, null, chosen, next);
                state.copy(next);
            }
            for (Role role : roles) goals += sm.getGoal(state, role);
            playouts++;
        }
        if (goals < 0) System.out.println("impossible");  // keeps the goals from being optimised away
        return new long[] {playouts, System.nanoTime() - begin};
    }
}
