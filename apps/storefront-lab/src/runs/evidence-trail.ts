import { Injectable } from '@nestjs/common';
import { fingerprintString } from '@verdict/nestjs';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { StageView } from './lab-run.js';

/** Fields of a decision record shown as the stage itself rather than as evidence. */
const HEADLINE = new Set([
  'id',
  'correlationId',
  'sequence',
  'capability',
  'toolKind',
  'stage',
  'disposition',
  'reason',
]);

/** Reads a call's stage timeline back from the evidence the pipeline wrote. */
@Injectable()
export class EvidenceTrail {
  constructor(private readonly dataSource: DataSource) {}

  /** The stages of one pipeline run, in order. */
  async ofCorrelation(correlationId: string): Promise<StageView[]> {
    const records = await this.dataSource
      .getRepository(DecisionRecordEntity)
      .find({ where: { correlationId }, order: { sequence: 'ASC' } });
    return records.map(stageView);
  }

  /** The stages of the most recent run of this tool call (found by its fingerprint), or none. */
  async latestOf(toolCallId: string): Promise<StageView[]> {
    const correlationId = await this.latestCorrelationOf(toolCallId);
    return correlationId === null ? [] : this.ofCorrelation(correlationId);
  }

  /** The correlation id of the most recent run of this tool call (found by its fingerprint), or `null`. */
  async latestCorrelationOf(toolCallId: string): Promise<string | null> {
    const latest = await this.dataSource.getRepository(DecisionRecordEntity).findOne({
      where: { toolCallFingerprint: fingerprintString(toolCallId) },
      order: { recordedAt: 'DESC', sequence: 'DESC' },
    });
    return latest?.correlationId ?? null;
  }
}

function stageView(record: DecisionRecordEntity): StageView {
  const evidence: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(record)) {
    if (HEADLINE.has(key) || value === null || value === undefined) continue;
    evidence[key] = value instanceof Date ? value.toISOString() : (value as string | number | boolean);
  }
  return { stage: record.stage, disposition: record.disposition, reason: record.reason, evidence };
}
