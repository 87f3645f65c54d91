// Reproduction, not part of the suite (not a *.test.ts): copy it to a .test.ts name to run it. It fails on the engine
// branch as merged into chaos: the memory store forgets a key's fence when the key is deleted.
import { expect, it } from 'vitest';
import { MemoryStateStore } from '@kubeplane/sdk';
// Life 1: apply creates the record (revision 1, no fence: apply holds no lease); a step's holder (token 1) reads
// revision 1 and freezes. Life 1 goes on under tokens 2.. and is destroyed (the record is deleted). Life 2: apply
// creates the record again, revision 1, no fence. The frozen holder wakes and writes on revision 1 with fence 1.
it('a dead holder from a destroyed life cannot overwrite the re-created record', async () => {
  const s = new MemoryStateStore();
  await s.put('clusters/c', { life: 1 }, 0);
  await s.put('clusters/c', { life: 1, step: 2 }, 1, { fence: 2 });
  await s.delete('clusters/c', 2);
  await s.put('clusters/c', { life: 2 }, 0);
  await expect(s.put('clusters/c', { life: 1, step: 2, by: 'dead holder' }, 1, { fence: 1 })).rejects.toThrow();
});
