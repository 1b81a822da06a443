import { describe, expect, it } from '@jest/globals';
import { EvaluationReport } from '@verdict/evaluation';
import request from 'supertest';
import { bootLab } from './lab-app.fixture.js';

describe('storefront lab: evaluation (the storefront attack pack from the page)', () => {
  it('runs the pack: every attack and utility case passes, no blocking change against the baseline, the report downloads', async () => {
    const { app } = await bootLab();
    const server = app.getHttpServer();
    await request(server).get('/api/labs/evaluation/report').expect(404);
    const { body } = await request(server).post('/api/labs/evaluation/runs').expect(200);
    expect(body.scores).toEqual([
      expect.objectContaining({ purpose: 'attack', passed: 19, failed: 0, errors: 0 }),
      expect.objectContaining({ purpose: 'utility', passed: 14, failed: 0, errors: 0 }),
    ]);
    expect(body.blocking).toBe(false);
    expect(body.changes).toEqual([]);
    expect(body.rendered).toContain('0 change(s)');
    const download = await request(server).get('/api/labs/evaluation/report').expect(200);
    expect(download.headers['content-disposition']).toContain('storefront-attack-pack.report.json');
    expect(EvaluationReport.parse(download.text).cases).toHaveLength(body.cases.length);
  });
});
