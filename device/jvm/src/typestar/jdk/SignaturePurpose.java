package typestar.jdk;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * {@code java.security.Signature} ("SHA256withRSA", SunRsaSign), PSYCO's example
 * (docs/targets/java_signature.md). Callins: {@code initSign}, {@code initVerify} (one fixed key
 * pair), {@code update} (fixed bytes), {@code sign}, {@code verify} (a fixed signature; the boolean
 * result is ignored). No callbacks: {@code wait} is always quiet.
 */
public final class SignaturePurpose implements PurposeProvider {
    private static final byte[] DATA = "typestar".getBytes(StandardCharsets.US_ASCII);
    private static KeyPair keys;
    private static byte[] signature;

    private static synchronized void keys() throws Exception {
        if (keys != null) return;
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        keys = g.generateKeyPair();
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(keys.getPrivate());
        s.update(DATA);
        signature = s.sign();
    }

    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.security.Signature", Signature.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(sink -> {
                    keys();
                    return Signature.getInstance("SHA256withRSA");
                })
                .callin("initSign", s -> s.initSign(keys.getPrivate()))
                .callin("initVerify", s -> s.initVerify(keys.getPublic()))
                .callin("sign", Signature::sign)
                .callin("update", s -> s.update(DATA))
                .callin("verify", s -> s.verify(signature))
                .timing(10, 0)
                .quietIsStable();
    }
}
