/**
 * A person in the loop: Approve / Deny on a tool card whose call waits for approval
 * (`approval-requested`). The chat gives the answer function through `ApprovalContext` (AI SDK:
 * `addToolApprovalResponse`; AG-UI: a run with `resume`); without one (a read-only view) the card
 * only says it waits. Plain buttons in a fieldset (named by the question) in the card's footer: Tab reaches them, Enter / Space press them.
 */
import { createContext, useContext, useState } from 'react';

/** Answers the approval `approvalId`. */
export type AnswerApproval = (approvalId: string, approved: boolean) => void;

export const ApprovalContext = createContext<AnswerApproval | undefined>(undefined);

/** The chat's answer function, when it has one. */
export function useAnswerApproval(): AnswerApproval | undefined {
  return useContext(ApprovalContext);
}

export function ApprovalButtons({
  approvalId,
  toolName,
  reason,
  answer,
}: {
  approvalId: string;
  toolName: string;
  reason?: string;
  answer: AnswerApproval;
}) {
  // Answered once: both buttons go disabled until the chat's state says what happened.
  const [sent, setSent] = useState<boolean | undefined>();
  const reply = (approved: boolean) => {
    if (sent !== undefined) return;
    setSent(approved);
    answer(approvalId, approved);
  };
  return (
    <fieldset className="approval" data-testid="approval">
      <legend className="approval-question">{reason ? reason : `Run ${toolName}?`}</legend>
      <button type="button" className="primary" disabled={sent !== undefined} onClick={() => reply(true)} data-testid="approve">
        Approve
      </button>
      <button type="button" className="danger" disabled={sent !== undefined} onClick={() => reply(false)} data-testid="deny">
        Deny
      </button>
    </fieldset>
  );
}
