import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Injectable } from '@nestjs/common';
import { LabRefusals, type RefusedRequest } from './lab-refusals.js';

/** The part of Express's response the filter writes. */
interface JsonResponse {
  status(code: number): { json(body: unknown): void };
}

/** The statuses a guarded endpoint refuses with; anything else (a 500, a 400) is answered as it was. */
const REFUSALS = new Set([401, 403, 404, 409]);

/**
 * On the lab's guarded approval and review routes: keeps the guard's status and message and adds the lab's
 * words for the refusal (`refusal`), so the page shows it as Verdict refusing someone, not as a fault.
 */
@Catch(HttpException)
@Injectable()
export class LabRefusalFilter implements ExceptionFilter {
  constructor(private readonly refusals: LabRefusals) {}

  async catch(exception: HttpException, host: ArgumentsHost): Promise<void> {
    const request = host.switchToHttp().getRequest<RefusedRequest>();
    const response = host.switchToHttp().getResponse<JsonResponse>();
    const status = exception.getStatus();
    const answer = exception.getResponse();
    const body = typeof answer === 'string' ? { statusCode: status, message: answer } : answer;
    const refusal = REFUSALS.has(status) ? await this.refusals.explain(request, status) : null;
    response.status(status).json(refusal === null ? body : { ...body, refusal });
  }
}
