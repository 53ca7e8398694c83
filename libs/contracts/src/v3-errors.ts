/**
 * Platform API v3's error table (spec, "Errors", platform API version 3), in one place: the codes the
 * services raise (DomainError's v3Code) and the description the gateway answers as a v3 error's `error`,
 * word for word.
 */
export const V3 = {
  NotOwned: 100,
  DataInvalid: 102,
  BodyInvalid: 103,
  Internal: 104,
  NoResources: 107,
  TemplateNotFound: 108,
  TaskNotFound: 109,
  Unauthorized: 401,
} as const;

/** Each code's description in the spec's table. */
export const V3_DESCRIPTIONS: Readonly<Record<number, string>> = {
  100: 'Task not owned by caller',
  101: 'Insufficient funds',
  102: 'Data is invalid',
  103: 'Body is invalid',
  104: 'Internal error',
  105: 'Test is invalid',
  106: 'Test answers are invalid',
  107: 'No resources were passed',
  108: 'Template not found',
  109: 'Task not found',
  110: 'No credit card on file',
  111: 'Assignment not found',
  401: 'Unauthorized access',
  500: 'Internal error',
};
