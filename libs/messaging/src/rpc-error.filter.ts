import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * Hands a handler's error to KafkaTransport unchanged: a DomainError keeps its code, message and field
 * errors for the RPC caller, and any other error keeps its message for the log and the dead-letter
 * headers. Nest's default filter would turn every non-RpcException into "Internal server error".
 */
@Catch()
export class DomainErrorRpcFilter implements RpcExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
