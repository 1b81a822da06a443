import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import canonicalize from 'canonicalize';

@Injectable()
class Hello { greet() { return 'hi'; } }
@Module({ providers: [Hello] })
class AppModule {}

describe('toolchain', () => {
  it('boots nest', async () => {
    const ref = await Test.createTestingModule({ imports: [AppModule] }).compile();
    expect(ref.get(Hello).greet()).toBe('hi');
    expect(createMongoAbility([{ action: 'read', subject: 'Order' }]).can('read', 'Order')).toBe(true);
    expect(canonicalize({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
});
