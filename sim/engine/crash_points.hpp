#pragma once
// Where tests kill a run on purpose, to check that `fedgrid resume` continues it whatever
// instant it died at. FEDGRID_CRASH_AT=NAME:N makes the N-th pass through crash_point(NAME)
// send this process SIGKILL (as `kill -9` would: no handler, no flush). Unset, a pass costs
// one comparison. Points: checkpoint-renaming (the new checkpoint is written and flushed as
// FILE.tmp, not yet renamed over the last one), checkpoint-written, round-reported (a round's
// rows are written; between checkpoints).
namespace fedgrid {

void crash_point(const char* name);

}  // namespace fedgrid
