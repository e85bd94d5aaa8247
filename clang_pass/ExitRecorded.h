//===- ExitRecorded.h - loops recorded at their exits -----------*- C++ -*-===//
//
// An innermost loop whose body is one basic block and calls nothing
// records nothing per iteration for its addresses affine in the loop
// (start + i * step, the start invariant, the step a constant): at each
// exit, one call (__commhint_loop_affine, commhint-rt.h) hands the runtime
// the starts, the steps and the iteration count, and the runtime makes the
// records the loop's iter calls and event calls would have made, in the
// same order.  A vectorised loop's body and its scalar remainder are such
// loops; so is a regular stencil's sweep.  Up to COMMHINT_RT_LOOP_IRR
// other addresses (irregular: x[col[j]] in a sparse product) are stored by
// each iteration into a buffer the runtime empties every
// COMMHINT_RT_LOOP_BUF iterations and at the exit.
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_EXIT_RECORDED_H
#define COMMHINT_EXIT_RECORDED_H

#include "AccessAnalysis.h"

#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Instructions.h"

#include <cstdint>
#include <vector>

namespace commhint {

/// One loop of a FunctionPlan recorded at its exits.
struct ExitRecordedLoop {
  int Loop = -1;                        // index into FunctionPlan::Loops
  llvm::BasicBlock *Header = nullptr;   // its one block
  std::vector<int> Sites;               // its sites (FunctionPlan::Sites), in order
  std::vector<uint32_t> Addrs;          // per site: its addresses
  std::vector<llvm::Value *> Starts;    // per access of the sites: its first address
  std::vector<int64_t> Steps;           // per access: bytes per iteration, or
                                        // COMMHINT_RT_IRREGULAR (its start null)
  std::vector<llvm::Value *> Irregular; // the irregular addresses, in access order
  llvm::Value *Iter = nullptr;          // iterations done before this one (header)
  llvm::Value *Trips = nullptr;         // iterations done, valid in every exit block
  std::vector<llvm::BasicBlock *> Exits; // its exit blocks (the header their one predecessor)
};

/// Finds the loops of \p Plan that can be recorded at their exits and
/// prepares them: each start is computed in the preheader and an iteration
/// counter is added to the header.  Runs before anything else changes the
/// function's IR (it reads scalar evolution).
std::vector<ExitRecordedLoop> findExitRecordedLoops(llvm::Function &F,
                                                    const FunctionPlan &Plan,
                                                    llvm::ScalarEvolution &SE);

} // namespace commhint

#endif
