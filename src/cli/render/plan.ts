/** The output of `a2a plan`: the plan negotiated, or the refusal. */
import type { PlanData } from '../../commands/plan.js';
import { type CommandRenderer, documentOf, renderPlan } from './common.js';

/** `a2a plan`: the document is `{"plan"}` or `{"refusal"}` with `warnings`; the lines name the skill and the card, then the plan's fields, or the refusal. */
export const planRenderer: CommandRenderer<PlanData> = {
  json: documentOf,
  text: (data) => {
    if ('plan' in data)
      return [
        `plan for skill "${data.human.skill}" on ${data.human.card.name} ${data.human.card.version}`,
        ...renderPlan(data.plan),
      ];
    return [`refused: ${data.refusal.code}: ${data.refusal.message}`];
  },
};
