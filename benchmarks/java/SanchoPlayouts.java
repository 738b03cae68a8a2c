// Random playouts on Sancho 1.61c's propnet (the 2014 champion player's state machine),
// the way gdl-perf's harness drives it: per step, the legal move set, one random move per
// role, the next state; at the end, each role's goal. A benchmark only: it is compiled at
// run time with PlayoutClock.java by benchmarks/perftest_vs_references.py against a Sancho
// build given with --sancho (its compiled classes and jars); nothing of Sancho is shipped.

import org.ggp.base.util.propnet.polymorphic.forwardDeadReckon.ForwardDeadReckonInternalMachineState;
import org.ggp.base.util.propnet.polymorphic.forwardDeadReckon.ForwardDeadReckonLegalMoveInfo;
import org.ggp.base.util.propnet.polymorphic.forwardDeadReckon.ForwardDeadReckonLegalMoveSet;
import org.ggp.base.util.statemachine.Role;
import org.ggp.base.util.statemachine.implementation.propnet.forwardDeadReckon.ForwardDeadReckonPropnetStateMachine;

public final class SanchoPlayouts {
    public static void main(String[] args) throws Exception {
        PlayoutClock clock = PlayoutClock.of("SanchoPlayouts", args);
        ForwardDeadReckonPropnetStateMachine sm = new ForwardDeadReckonPropnetStateMachine();
        sm.initialize(clock.rules());
        sm.enableGreedyRollouts(false, true);
        sm.optimizeStateTransitionMechanism(System.currentTimeMillis() + 5000);
        ForwardDeadReckonInternalMachineState initial = sm.createInternalState(sm.getInitialState());
        Role[] roles = sm.getRoles();
        ForwardDeadReckonInternalMachineState state = sm.createEmptyInternalState();
        ForwardDeadReckonInternalMachineState next = sm.createEmptyInternalState();
        ForwardDeadReckonLegalMoveInfo[] chosen = new ForwardDeadReckonLegalMoveInfo[roles.length];
        clock.time(() -> {
            state.copy(initial);
            while (!sm.isTerminal(state)) {
                ForwardDeadReckonLegalMoveSet moves = sm.getLegalMoveSet(state);
                for (int r = 0; r < roles.length; r++) chosen[r] = moves.getRandomMove(r);
                sm.getNextState(state, null, chosen, next);
                state.copy(next);
            }
            long goals = 0;
            for (Role role : roles) goals += sm.getGoal(state, role);
            return goals;
        });
    }
}
