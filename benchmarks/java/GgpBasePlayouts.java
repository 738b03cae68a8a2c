// Random playouts on ggp-base's own state machine (its prover, the reference GDL reasoner
// of the 2010s), the way gdl-perf's harness drives it: per step a random joint move and
// the next state; at the end, each role's goal. A benchmark only: it is compiled at run
// time with PlayoutClock.java by benchmarks/perftest_vs_references.py against a ggp-base
// build given with --ggp-base-classpath (its compiled classes and the jars of its lib/);
// nothing of ggp-base is shipped.

import java.util.List;

import org.ggp.base.util.statemachine.MachineState;
import org.ggp.base.util.statemachine.Role;
import org.ggp.base.util.statemachine.StateMachine;
import org.ggp.base.util.statemachine.implementation.prover.ProverStateMachine;

public final class GgpBasePlayouts {
    public static void main(String[] args) throws Exception {
        PlayoutClock clock = PlayoutClock.of("GgpBasePlayouts", args);
        StateMachine sm = new ProverStateMachine();
        sm.initialize(clock.rules());
        MachineState initial = sm.getInitialState();
        List<Role> roles = sm.getRoles();
        clock.time(() -> {
            MachineState state = initial;
            while (!sm.isTerminal(state)) state = sm.getRandomNextState(state);
            long goals = 0;
            for (Role role : roles) goals += sm.getGoal(state, role);
            return goals;
        });
    }
}
