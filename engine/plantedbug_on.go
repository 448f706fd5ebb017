//go:build robustness_plantedbug

package engine

// plantedBug is on in a build with -tags robustness_plantedbug only: put
// answers INSERTED without waiting for the journal to commit the job. The
// robustness suite builds stalkd so and must find the lost puts
// (engine/robustness, TestPlantedBugIsCaught): a suite that cannot fail
// proves nothing.
const plantedBug = true
