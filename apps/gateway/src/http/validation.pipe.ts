import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { DomainError, ErrorCode, flattenValidationErrors } from '@workline/contracts';

/** Strict body validation: the body must be an object, unknown fields are refused, errors name each field (422). */
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: (errors) => {
        const fieldErrors = flattenValidationErrors(errors);
        return new DomainError(ErrorCode.Validation, `Invalid request: ${fieldErrors.map((e) => e.message).join('; ')}`, fieldErrors);
      },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      value ??= {};
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new DomainError(ErrorCode.Validation, 'Invalid request: the body must be a JSON object', [
          { field: '(body)', message: 'the body must be a JSON object' },
        ]);
      }
    }
    return super.transform(value, metadata);
  }
}
