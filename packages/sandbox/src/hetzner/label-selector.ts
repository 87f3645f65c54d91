// The Hetzner Cloud API's label selectors (https://docs.hetzner.cloud/reference/cloud#label-selector): the shared
// grammar, a malformed selector refused with 400 `invalid_input`.
import { labelSelector, LabelSelectorSyntaxError } from '../label-selector.js';
import { invalidInput } from './dialect.js';
import type { Labels } from './resources.js';

/** A predicate over labels; throws an EmulatorError (400 invalid_input) for a malformed selector. */
export function hetznerLabelSelector(selector: string): (labels: Labels) => boolean {
  try {
    return labelSelector(selector);
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError) throw invalidInput('label_selector', error.message);
    throw error;
  }
}
