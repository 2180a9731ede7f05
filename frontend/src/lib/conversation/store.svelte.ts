// The conversation store: the reducer's state held as one raw $state, so
// each batch of events replaces only what changed.
import type { AgentEvent } from './events';
import type { RuleData } from './events';
import {
  answered,
  budgetAnswered,
  initialState,
  mcpWaitSkipped,
  inputAnswered,
  reduce,
  withGrants,
  withoutFailedCompaction,
  withFailureContinued,
  withoutFailedTurn,
  type ConversationState,
  type Decision,
} from './reducer';

export class Conversation {
  state: ConversationState = $state.raw(initialState());

  apply(batch: AgentEvent[], now = Date.now()): void {
    let s = this.state;
    for (const ev of batch) s = reduce(s, ev, now);
    this.state = s;
  }

  answer(requestId: string, d: Decision, now = Date.now()): void {
    this.state = answered(this.state, requestId, d, now);
  }

  budgetAnswered(requestId: string): void {
    this.state = budgetAnswered(this.state, requestId);
  }

  mcpWaitSkipped(requestId: string): void {
    this.state = mcpWaitSkipped(this.state, requestId);
  }

  replied(requestId: string, text: string): void {
    this.state = inputAnswered(this.state, requestId, text);
  }

  /** Before a failed turn's prompt is sent again: drops that turn. */
  dropFailedTurn(): void {
    this.state = withoutFailedTurn(this.state);
  }

  /** Once a kept failed turn (its failure notice id) is continued: its
   * card leaves the retry. */
  continueFailedTurn(id: string): void {
    this.state = withFailureContinued(this.state, id);
  }

  /** Before a failed "Compact now" is tried again: drops it. */
  dropFailedCompaction(): void {
    this.state = withoutFailedCompaction(this.state);
  }

  setGrants(grants: RuleData[]): void {
    this.state = withGrants(this.state, grants);
  }

  reset(): void {
    this.state = initialState();
  }
}
